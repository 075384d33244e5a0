import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { registerPlugin, runStorageContract } from '@backplane/plugin-testkit';

/**
 * The example third-party plugin (test/fixtures/plugin-package, plain JavaScript importing
 * nothing from Backplane) against the published kit: it registers cleanly and its storage type
 * passes the whole storage conformance suite.
 */
const example: unknown = (
  (await import(new URL('../fixtures/plugin-package/index.js', import.meta.url).href)) as { default: unknown }
).default;
const deps = { tempDir: tmpdir(), log: { info() {}, warn() {}, error() {} } };

test('the example plugin registers one storage type through the fake extension points', async () => {
  const registration = await registerPlugin(example);
  assert.deepEqual([...registration.storage.keys()], ['fixture_memory']);
  assert.equal(registration.notifiers.size, 0);
  assert.equal(registration.databases.size, 0);
  await assert.rejects(
    registerPlugin(example, { storage: ['fixture_memory'] }),
    /storage type "fixture_memory" is already provided/,
  );
});

const { storage } = await registerPlugin(example);
runStorageContract(
  'example plugin (fixture_memory)',
  async () => {
    const instance = await storage
      .get('fixture_memory')!
      .create({ bucket: `contract-${randomBytes(6).toString('hex')}` }, deps);
    return { instance };
  },
  {
    // An in-memory store holds every object whole by design, so the bounded-memory check cannot
    // apply to it; the streaming round trip still runs, at a size that keeps the test quick.
    largeBytes: 16 * 1024 * 1024,
  },
);
