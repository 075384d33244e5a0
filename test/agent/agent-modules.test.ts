import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../core/main.ts', import.meta.url));

/**
 * What `backplane agent` loads, read in a fresh process from the module loader itself (type-only
 * imports never load, so a static dependency check cannot tell this): an agent holds ~20 MiB less
 * without the master's web stack, the ORM and TypeBox (docs/benchmarks.md). The agent's command
 * is started up to the point of reading its arguments, which fail on purpose.
 */
test('the agent command loads neither the master, the ORM nor TypeBox', async () => {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    process.argv = [process.argv[0], ${JSON.stringify(MAIN)}, 'agent', '--no-such-flag'];
    process.on('exit', () => { process.exitCode = 0; console.log(JSON.stringify(loaded)); });
    await import(${JSON.stringify(MAIN)});
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '' },
    maxBuffer: 16 * 1024 * 1024,
  });
  const loaded = JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
  assert.ok(
    loaded.some((url) => url.endsWith('/agent/commands/dispatch.ts')),
    'the agent and its commands loaded',
  );
  const unwanted = loaded.filter((url) =>
    /node_modules\/(@mikro-orm|typebox)\/|\/core\/(server|app|container)\.ts$|\/core\/(features|http|db)\//.test(url),
  );
  assert.deepEqual(unwanted, []);
});
