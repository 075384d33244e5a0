import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/build.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const consoleApi = join(root, 'packages', 'console', 'src', 'api');
const FIX =
  'the console is typed against a stale API description: run `npm run console:api` and commit packages/console/src/api';

// The console's request and response types come from the OpenAPI description the master serves
// (never hand-copied): the committed description must be the one the server generates now, and
// the committed types what openapi-typescript makes of it. Either drifting fails here.
test('the console API description is the one the server serves, and its types are generated from it', async (t) => {
  const dir = await tempDir(t);
  const spec = join(dir, 'openapi.json');
  await run(process.execPath, [join(root, 'scripts', 'export-openapi.ts'), spec], { cwd: root });
  const served = await readFile(spec, 'utf8');
  assert.equal(await readFile(join(consoleApi, 'openapi.json'), 'utf8'), served, FIX);

  const types = join(dir, 'schema.d.ts');
  await run(
    process.execPath,
    [join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), join(consoleApi, 'openapi.json'), '-o', types],
    { cwd: root },
  );
  assert.equal(await readFile(join(consoleApi, 'schema.d.ts'), 'utf8'), await readFile(types, 'utf8'), FIX);
});
