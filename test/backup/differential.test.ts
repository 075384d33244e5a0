import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { filesUnder } from '../engine/helpers.ts';
import { diskTarget, createTask, runAndWait } from './helpers.ts';

async function settled(app: FastifyInstance, token: string, url: string): Promise<any> {
  const c = app.diContainer.cradle;
  await Promise.all([c.restores.idle(), c.verifications.idle(), c.replications.idle()]);
  const res = await call(app, 'GET', url, { token });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

async function contents(app: FastifyInstance, token: string, id: number, under: string): Promise<string[]> {
  const res = await call(app, 'GET', `/api/backup/records/${id}/contents?limit=1000`, { token });
  assert.equal(res.status, 200, res.body);
  return res.json.data.entries
    .map((e: { path: string }) => e.path)
    .filter((p: string) => p.startsWith(under))
    .map((p: string) => p.slice(under.length))
    .filter((p: string) => p !== '')
    .sort();
}

test('differential mode: a full, then only what changed; restore, browse and verify see the tree as it was', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  const under = `${src.slice(1)}/`;
  await mkdir(join(src, 'docs/old'), { recursive: true });
  await mkdir(join(src, 'gone'), { recursive: true });
  await writeFile(join(src, 'docs/a.txt'), 'first version');
  await writeFile(join(src, 'docs/old/b.txt'), 'bee');
  await writeFile(join(src, 'gone/c.txt'), 'sea');
  await writeFile(join(src, 'big.bin'), randomBytes(2 * 1024 * 1024));
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'diff',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    backupMode: 'differential',
  });
  const got = await call(app, 'GET', `/api/backup/tasks/${task.id}`, { token: admin });
  assert.equal(got.json.data.backupMode, 'differential');

  const full = await runAndWait(app, admin, task.id);
  assert.equal(full.status, 'success', full.errorMessage);
  assert.equal(full.backupKind, 'full', 'the first run is a full');
  assert.equal(full.baseRecordId, 0);

  // Between the runs: one file changed, one added, a folder deleted, a folder renamed.
  await writeFile(join(src, 'docs/a.txt'), 'second version, longer');
  await writeFile(join(src, 'new.txt'), 'new');
  await rm(join(src, 'gone'), { recursive: true });
  await rename(join(src, 'docs/old'), join(src, 'docs/renamed'));
  const diff = await runAndWait(app, admin, task.id);
  assert.equal(diff.status, 'success', diff.errorMessage);
  assert.equal(diff.backupKind, 'differential');
  assert.equal(diff.baseRecordId, full.id);
  assert.ok(diff.fileSize < full.fileSize / 10, `only what changed is stored (${diff.fileSize} vs ${full.fileSize})`);

  // Browsing shows each record's own tree.
  assert.deepEqual(await contents(app, admin, full.id, under), [
    'big.bin',
    'docs',
    'docs/a.txt',
    'docs/old',
    'docs/old/b.txt',
    'gone',
    'gone/c.txt',
  ]);
  assert.deepEqual(await contents(app, admin, diff.id, under), [
    'big.bin',
    'docs',
    'docs/a.txt',
    'docs/renamed',
    'docs/renamed/b.txt',
    'new.txt',
  ]);

  // A whole restore into a new folder: the full, then the differential.
  const into = await tempDir(t);
  const restore = await call(app, 'POST', `/api/backup/records/${diff.id}/restore`, {
    token: admin,
    body: { targetPath: into },
  });
  assert.equal(restore.status, 200, restore.body);
  const r = await settled(app, admin, `/api/restore/records/${restore.json.data.id}`);
  assert.equal(r.status, 'success', r.errorMessage);
  const restored = join(into, src);
  assert.deepEqual((await filesUnder(restored)).sort(), (await filesUnder(src)).sort());
  for (const file of await filesUnder(src))
    assert.deepEqual(await readFile(join(restored, file)), await readFile(join(src, file)), file);

  // A selective restore of a file the full holds and the differential left alone.
  const picked = await tempDir(t);
  const selective = await call(app, 'POST', `/api/backup/records/${diff.id}/restore`, {
    token: admin,
    body: { targetPath: picked, selectedPaths: [`${under}docs/renamed`] },
  });
  assert.equal(selective.status, 200, selective.body);
  const s = await settled(app, admin, `/api/restore/records/${selective.json.data.id}`);
  assert.equal(s.status, 'success', s.errorMessage);
  assert.deepEqual(await filesUnder(join(picked, src)), ['docs/renamed/b.txt']);

  // Deep verification restores the chain into a sandbox and compares the whole tree.
  const deep = await call(app, 'POST', `/api/backup/records/${diff.id}/verify`, {
    token: admin,
    body: { mode: 'deep' },
  });
  assert.equal(deep.status, 200, deep.body);
  const d = await settled(app, admin, `/api/verify/records/${deep.json.data.id}`);
  assert.equal(d.status, 'success', d.errorMessage);
  const quick = await call(app, 'POST', `/api/backup/records/${diff.id}/verify`, {
    token: admin,
    body: { mode: 'quick' },
  });
  const q = await settled(app, admin, `/api/verify/records/${quick.json.data.id}`);
  assert.equal(q.status, 'success', q.errorMessage);
});

test('differential chains: dependents block a delete, replication brings the full, downloads name it, lost state gives a full', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'a.txt'), 'a');
  await writeFile(join(src, 'b.bin'), randomBytes(256 * 1024));
  const disk = await diskTarget(t, app, admin);
  const other = await diskTarget(t, app, admin, 'other');
  const task = await createTask(app, admin, {
    name: 'chain',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    backupMode: 'differential',
  });
  const full = await runAndWait(app, admin, task.id);
  await writeFile(join(src, 'a.txt'), 'changed');
  const diff = await runAndWait(app, admin, task.id);
  assert.deepEqual([diff.backupKind, diff.baseRecordId], ['differential', full.id]);

  // The full cannot go while its differential needs it.
  const refused = await call(app, 'DELETE', `/api/backup/records/${full.id}`, { token: admin });
  assert.equal(refused.status, 409, refused.body);
  assert.equal(refused.json.code, 'BACKUP_RECORD_HAS_DEPENDENTS');
  assert.match(refused.json.message, new RegExp(`${diff.id}`));

  // The download is the differential's own artifact; its headers name the full.
  const download = await call(app, 'GET', `/api/backup/records/${diff.id}/download`, { token: admin });
  assert.equal(download.status, 200);
  assert.equal(download.headers['x-backup-kind'], 'differential');
  assert.equal(download.headers['x-backup-base-record-id'], String(full.id));
  assert.equal(Number(download.headers['content-length']), diff.fileSize);
  const listing = await call(app, 'GET', `/api/backup/records/${diff.id}/contents`, { token: admin });
  assert.equal(listing.json.data.basedOnFull, full.id);

  // Replicating the differential copies its full to the destination first.
  const rep = await call(app, 'POST', `/api/backup/records/${diff.id}/replicate`, {
    token: admin,
    body: { destTargetId: other.id },
  });
  assert.equal(rep.status, 200, rep.body);
  const r = await settled(app, admin, `/api/replication/records/${rep.json.data.id}`);
  assert.equal(r.status, 'success', r.errorMessage);
  for (const id of [full.id, diff.id]) {
    const detail = await call(app, 'GET', `/api/backup/records/${id}`, { token: admin });
    const copies = detail.json.data.storageUploadResults.map((c: any) => [c.storageTargetId, c.status]);
    assert.deepEqual(
      copies.sort(),
      [
        [disk.id, 'success'],
        [other.id, 'success'],
      ].sort(),
      `record ${id} is on both targets`,
    );
  }

  // The master's own copy of the snapshot file is lost: the sealed one in the database serves.
  const dataDir = app.diContainer.cradle.config.dataDir;
  await rm(join(dataDir, 'tar-snapshots', `record-${full.id}.snar`));
  await writeFile(join(src, 'a.txt'), 'changed again');
  const again = await runAndWait(app, admin, task.id);
  assert.deepEqual([again.backupKind, again.baseRecordId], ['differential', full.id]);

  // Every copy of the full gone from storage: the next run is a full, and the log says why.
  await rm(join(disk.dir, full.storagePath));
  await rm(join(other.dir, full.storagePath));
  const fresh = await runAndWait(app, admin, task.id);
  assert.equal(fresh.status, 'success', fresh.errorMessage);
  assert.equal(fresh.backupKind, 'full');
  const log = fresh.logEvents.map((e: { message: string }) => e.message).join('\n');
  assert.match(log, /a full backup \(the copies of the newest full .* are unusable/);

  // The differentials go first, then their full.
  for (const id of [again.id, diff.id, full.id]) {
    const res = await call(app, 'DELETE', `/api/backup/records/${id}`, { token: admin });
    assert.equal(res.status, 200, res.body);
  }
});
