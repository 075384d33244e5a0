import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { call, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask } from '../backup/helpers.ts';
import { agentFor, master, finished, node, runToEnd } from '../helpers/agent-master.ts';
import { filesUnder } from '../engine/helpers.ts';

test('differential mode on an agent: a full, then what changed; a lost local snapshot file comes from the master; the node restores the chain', async (t) => {
  const m = await master(t);
  const n = await node(m, 'edge-diff');
  const dir = await tempDir(t, 'backplane-agent-');
  const agent = await agentFor(t, m, n, { dir });
  const src = await tempDir(t);
  await mkdir(join(src, 'docs/old'), { recursive: true });
  await writeFile(join(src, 'docs/a.txt'), 'first');
  await writeFile(join(src, 'docs/old/b.txt'), 'bee');
  await writeFile(join(src, 'gone.txt'), 'gone later');
  await writeFile(join(src, 'big.bin'), randomBytes(1024 * 1024));
  const target = await diskTarget(t, m.app, m.token);
  const task = await createTask(m.app, m.token, {
    name: 'node-diff',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeId: n.id,
    backupMode: 'differential',
  });

  const full = await runToEnd(m, task.id, agent);
  assert.equal(full.status, 'success', full.errorMessage);
  assert.equal(full.backupKind, 'full');
  const kept = await readdir(join(dir, 'tmp', 'tar-snapshots'));
  assert.deepEqual(kept, [`record-${full.id}.snar`], "the node keeps the full's snapshot file");

  await writeFile(join(src, 'docs/a.txt'), 'second, longer');
  await rm(join(src, 'gone.txt'));
  await rename(join(src, 'docs/old'), join(src, 'docs/renamed'));
  await writeFile(join(src, 'new.txt'), 'new');
  const diff = await runToEnd(m, task.id, agent);
  assert.equal(diff.status, 'success', diff.errorMessage);
  assert.deepEqual([diff.backupKind, diff.baseRecordId], ['differential', full.id]);
  assert.ok(diff.fileSize < full.fileSize / 10, 'only what changed is stored');
  const listing = await call(m.app, 'GET', `/api/backup/records/${diff.id}/contents?limit=1000`, { token: m.token });
  const under = `${src.slice(1)}/`;
  const paths = listing.json.data.entries
    .map((e: { path: string }) => e.path)
    .filter((p: string) => p.startsWith(under))
    .map((p: string) => p.slice(under.length))
    .sort();
  assert.deepEqual(paths, ['big.bin', 'docs', 'docs/a.txt', 'docs/renamed', 'docs/renamed/b.txt', 'new.txt']);

  // The node lost its copy: the sealed one on the master serves, and the run is still a differential.
  await rm(join(dir, 'tmp', 'tar-snapshots'), { recursive: true });
  await writeFile(join(src, 'new.txt'), 'newer');
  const again = await runToEnd(m, task.id, agent);
  assert.deepEqual([again.status, again.backupKind, again.baseRecordId], ['success', 'differential', full.id]);
  assert.match(JSON.stringify(again.logEvents), /fetched from the master/);

  // The node restores the chain: its full, then the differential.
  const into = await tempDir(t);
  const restore = await call(m.app, 'POST', `/api/backup/records/${again.id}/restore`, {
    token: m.token,
    body: { targetPath: into },
  });
  assert.equal(restore.status, 200, restore.body);
  const done = await finished(m, `/api/restore/records/${restore.json.data.id}`, agent);
  assert.equal(done.status, 'success', done.errorMessage);
  const restored = join(into, src);
  assert.deepEqual((await filesUnder(restored)).sort(), (await filesUnder(src)).sort());
  for (const file of await filesUnder(src))
    assert.deepEqual(await readFile(join(restored, file)), await readFile(join(src, file)), file);
});
