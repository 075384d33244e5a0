import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Each kit package's entry (index.js) re-exports src/index.ts by name, so it can load the source
 * in the repository and dist/ once published. A value export missing from that list would be
 * missing for every plugin: the entry must export exactly what the source does.
 */
const root = join(import.meta.dirname, '../../packages');

for (const pkg of ['plugin-api', 'plugin-testkit']) {
  test(`@backplane/${pkg}: the entry exports every value export of the source, and nothing else`, async () => {
    const source = (await import(join(root, pkg, 'src/index.ts'))) as Record<string, unknown>;
    const entry = (await import(join(root, pkg, 'index.js'))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(entry).sort(), Object.keys(source).sort());
    for (const name of Object.keys(source)) assert.equal(entry[name], source[name], `${name} is the source's own`);
  });
}

test('the packages are versioned together and export their entry with its types', async () => {
  const api = JSON.parse(await readFile(join(root, 'plugin-api/package.json'), 'utf8'));
  const kit = JSON.parse(await readFile(join(root, 'plugin-testkit/package.json'), 'utf8'));
  assert.equal(kit.version, api.version);
  assert.equal(kit.dependencies['@backplane/plugin-api'], api.version);
  for (const pkg of [api, kit]) {
    assert.deepEqual(pkg.exports['.'], { types: './dist/index.d.ts', default: './index.js' });
    assert.ok(pkg.files.includes('dist') && !pkg.files.includes('src'), `${pkg.name} publishes dist, not src`);
  }
});
