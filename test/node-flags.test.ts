import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { MASTER_NODE_FLAGS } from '../core/node-flags.ts';

test('npm start and the Dockerfile run the master with the same Node flags as tests and benchmarks', async () => {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const docker = await readFile(new URL('../Dockerfile', import.meta.url), 'utf8');
  for (const flag of MASTER_NODE_FLAGS) {
    assert.match(pkg.scripts.start!, new RegExp(`node ${flag.replace(/[-=]/g, (c) => `\\${c}`)} core/main\\.ts`));
    assert.ok(docker.includes(`"${flag}"`), `Dockerfile ENTRYPOINT has ${flag}`);
  }
});
