import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { providerErrorKind } from '@backplane/plugin-api';
import { RSS_GROWTH_LIMIT } from '@backplane/plugin-testkit';

/** Facts the docs state about the code, checked against the code, so the two cannot drift apart. */
const root = join(import.meta.dirname, '../..');
const doc = (name: string) => readFile(join(root, 'docs', name), 'utf8');

test('architecture.md: the layout lists every folder of core/ inside the core/ block', async () => {
  const text = await doc('architecture.md');
  const block = /```\n(core\/[\s\S]*?)\n```/.exec(text)![1]!;
  // The core/ block runs from `core/` to the next unindented line (`plugins/...`).
  const lines = block.split('\n');
  const end = lines.findIndex((l, i) => i > 0 && /^\S/.test(l));
  const listed = new Set(
    lines
      .slice(1, end)
      .map((l) => /^ {2}([a-z-]+)\//.exec(l)?.[1])
      .filter(Boolean),
  );
  const folders = (await readdir(join(root, 'core'), { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  for (const folder of folders) assert.ok(listed.has(folder), `core/${folder}/ is listed under core/ in the layout`);
  assert.doesNotMatch(text, /later target credentials/, 'target credentials are sealed now');
});

test("plugin-authoring.md: the storage suite's memory bound is the one the suite enforces", async () => {
  const text = await doc('plugin-authoring.md');
  const bound = RSS_GROWTH_LIMIT / (1024 * 1024);
  const stated = [...text.matchAll(/(\d+) MiB memory bound|grows by at most (\d+) MiB/g)].map((m) =>
    Number(m[1] ?? m[2]),
  );
  assert.ok(stated.length >= 2, 'the bound is stated');
  assert.deepEqual(
    stated,
    stated.map(() => bound),
  );
});

test('plugin-authoring.md: error kinds are recognised by shape, as core does', async () => {
  const text = await doc('plugin-authoring.md');
  assert.doesNotMatch(text, /only on an `instanceof ProviderError`/);
  assert.match(text, /by shape, not by `instanceof`/);
  // What the doc tells third-party authors to throw is what core classifies.
  assert.equal(
    providerErrorKind(Object.assign(new Error('gone'), { name: 'ProviderError', kind: 'not_found' })),
    'not_found',
  );
});

test('api-decisions.md and the event bus claim nothing that is not there', async () => {
  const text = await doc('api-decisions.md');
  assert.doesNotMatch(text, /arrives with the agent|comes with the node protocol|not part of this change/);
  const bus = await readFile(join(root, 'core/events/event-bus.ts'), 'utf8');
  assert.doesNotMatch(bus, /LISTEN\/NOTIFY/);
});
