import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readlink, rm, writeFile, symlink, readdir, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
import { filesUnder } from '../engine/helpers.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';
import { flipByte } from '../helpers/flip-byte.ts';

async function oddTree(dir: string): Promise<void> {
  await mkdir(join(dir, 'with space/ünïcødé ✓'), { recursive: true });
  await mkdir(join(dir, 'empty dir'), { recursive: true });
  await writeFile(join(dir, 'with space/ünïcødé ✓/naïve file.txt'), 'bonjour\n'.repeat(100));
  await writeFile(join(dir, 'big.bin'), randomBytes(3 * 1024 * 1024));
  await writeFile(join(dir, 'keep.txt'), 'original');
  await symlink('keep.txt', join(dir, 'link to keep'));
}

async function waitFor(app: FastifyInstance, token: string, url: string): Promise<any> {
  const c = app.diContainer.cradle;
  await Promise.all([c.restores.idle(), c.verifications.idle(), c.replications.idle()]);
  const res = await call(app, 'GET', url, { token });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

test('file records restore in place, into a directory and selectively; verification quick and deep; a flipped byte is refused by all', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await oddTree(src);
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'odd',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const backup = await runAndWait(app, admin, task.id);
  assert.equal(backup.status, 'success', backup.errorMessage);
  const original = await filesUnder(src);

  // Quick and deep verification of the intact artifact.
  const quick = await call(app, 'POST', `/api/backup/records/${backup.id}/verify`, {
    token: admin,
    body: { mode: 'quick' },
  });
  assert.equal(quick.status, 200, quick.body);
  const q = await waitFor(app, admin, `/api/verify/records/${quick.json.data.id}`);
  assert.equal(q.status, 'success', q.errorMessage);
  assert.match(q.summary, /match the manifest/);
  assert.equal(q.restoreSeconds, null, 'quick restores nothing');
  const deep = await call(app, 'POST', `/api/backup/tasks/${task.id}/verify`, { token: admin, body: { mode: 'deep' } });
  const d = await waitFor(app, admin, `/api/verify/records/${deep.json.data.id}`);
  assert.equal(d.status, 'success', d.errorMessage);
  assert.equal(d.backupRecordId, backup.id, 'the task route verifies the newest success');
  assert.match(d.summary, /deep: restored \d+ entries/);
  assert.ok(d.restoreSeconds !== null && d.restoreSeconds >= 0);

  // Destroy and change the data, then restore in place.
  await rm(join(src, 'with space'), { recursive: true });
  await writeFile(join(src, 'keep.txt'), 'changed');
  const inPlace = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, { token: admin, body: {} });
  assert.equal(inPlace.status, 200, inPlace.body);
  const r1 = await waitFor(app, admin, `/api/restore/records/${inPlace.json.data.id}`);
  assert.equal(r1.status, 'success', r1.errorMessage);
  assert.deepEqual(await filesUnder(src), original);
  assert.equal(await readFile(join(src, 'keep.txt'), 'utf8'), 'original');
  assert.equal(await readFile(join(src, 'with space/ünïcødé ✓/naïve file.txt'), 'utf8'), 'bonjour\n'.repeat(100));
  assert.equal(await readlink(join(src, 'link to keep')), 'keep.txt');
  assert.ok((await lstat(join(src, 'empty dir'))).isDirectory());
  assert.match(r1.logContent, /restored \d+ entries/);

  // Into another directory, only one folder.
  const elsewhere = await tempDir(t);
  const inner = `${src.slice(1)}/with space`;
  const sel = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, {
    token: admin,
    body: { targetPath: elsewhere, selectedPaths: [inner] },
  });
  const r2 = await waitFor(app, admin, `/api/restore/records/${sel.json.data.id}`);
  assert.equal(r2.status, 'success', r2.errorMessage);
  assert.deepEqual(await filesUnder(join(elsewhere, src.slice(1))), ['with space/ünïcødé ✓/naïve file.txt']);

  // Bad inputs.
  const rel = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, {
    token: admin,
    body: { targetPath: 'relative/dir' },
  });
  assert.equal(rel.json.code, 'RESTORE_TARGET_INVALID');
  const dots = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, {
    token: admin,
    body: { targetPath: elsewhere, selectedPaths: ['../etc'] },
  });
  assert.equal(dots.json.code, 'RESTORE_TARGET_INVALID');
  const viewer = await userWithRole(app, admin, 'viewer');
  assert.equal(
    (await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, { token: viewer.token, body: {} })).status,
    403,
  );
  assert.equal(
    (await call(app, 'GET', `/api/restore/records/${sel.json.data.id}`, { token: viewer.token })).status,
    200,
  );
  const list = await call(app, 'GET', '/api/restore/records', {
    token: viewer.token,
    query: { backupRecordId: String(backup.id) },
  });
  assert.equal(list.headers['x-total-count'], '2');

  // A flipped byte in the stored object: quick verification, restore and replication all refuse it.
  await flipByte(join(disk.dir, backup.storagePath), Math.floor(backup.fileSize / 2));
  await writeFile(join(src, 'keep.txt'), 'after corruption');
  const bad = await waitFor(
    app,
    admin,
    `/api/verify/records/${(await call(app, 'POST', `/api/backup/records/${backup.id}/verify`, { token: admin, body: { mode: 'quick' } })).json.data.id}`,
  );
  assert.equal(bad.status, 'failed');
  const badRestore = await waitFor(
    app,
    admin,
    `/api/restore/records/${(await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, { token: admin, body: {} })).json.data.id}`,
  );
  assert.equal(badRestore.status, 'failed');
  assert.equal(await readFile(join(src, 'keep.txt'), 'utf8'), 'after corruption', 'nothing was overwritten');
  const spare = await diskTarget(t, app, admin, 'spare');
  const rep = await call(app, 'POST', `/api/backup/records/${backup.id}/replicate`, {
    token: admin,
    body: { destTargetId: spare.id },
  });
  assert.equal(rep.status, 200, rep.body);
  const badCopy = await waitFor(app, admin, `/api/replication/records/${rep.json.data.id}`);
  assert.equal(badCopy.status, 'failed');
  assert.match(badCopy.errorMessage, /SHA-256|checksum|artifact check failed/);
  assert.deepEqual(await readdir(spare.dir), [], 'the destination keeps nothing');
});

test('a tar entry that climbs out of the restore root through a symlink is refused', async (t) => {
  const { safeExtract } = await import('../../core/engine/restore/safe-extract.ts');
  const tar = (await import('tar-stream')).default;
  const root = await tempDir(t);
  const outside = await tempDir(t);
  const pack = tar.pack();
  pack.entry({ name: 'a', type: 'symlink', linkname: outside });
  pack.entry({ name: 'a/evil.txt' }, 'pwned');
  pack.finalize();
  const { Readable } = await import('node:stream');
  await assert.rejects(safeExtract(Readable.from(pack), { root }), /outside/);
  assert.deepEqual(await readdir(outside), []);
  const dotdot = tar.pack();
  dotdot.entry({ name: '../escape.txt' }, 'x');
  dotdot.entry({ name: 'fine.txt' }, 'ok');
  dotdot.finalize();
  const warnings: string[] = [];
  await safeExtract(Readable.from(dotdot), { root, onWarning: (m) => warnings.push(m) });
  assert.deepEqual(await readdir(root), ['a', 'fine.txt']);
  assert.match(warnings.join('\n'), /\.\./);
});

test('replication copies the artifact, and downloads and restores fall back to the replica when the primary target is gone', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'data.txt'), 'precious');
  const primary = await diskTarget(t, app, admin, 'primary');
  const replica = await diskTarget(t, app, admin, 'replica');
  const task = await createTask(app, admin, {
    name: 'rep',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [primary.id],
    replicationTargetIds: [replica.id],
  });
  const backup = await runAndWait(app, admin, task.id);
  await app.diContainer.cradle.replications.idle();
  const reps = await call(app, 'GET', '/api/replication/records', {
    token: admin,
    query: { backupRecordId: String(backup.id) },
  });
  assert.equal(reps.json.data.length, 1, 'automatic replication after the run');
  assert.equal(reps.json.data[0].status, 'success', reps.json.data[0].errorMessage);
  assert.equal(reps.json.data[0].sourceTargetName, 'primary');
  assert.deepEqual(
    await readFile(join(replica.dir, backup.storagePath)),
    await readFile(join(primary.dir, backup.storagePath)),
  );
  const detail = (await call(app, 'GET', `/api/backup/records/${backup.id}`, { token: admin })).json.data;
  assert.deepEqual(
    detail.storageUploadResults.map((r: { storageTargetName: string; status: string }) => [
      r.storageTargetName,
      r.status,
    ]),
    [
      ['primary', 'success'],
      ['replica', 'success'],
    ],
  );

  const again = await call(app, 'POST', `/api/backup/records/${backup.id}/replicate`, {
    token: admin,
    body: { destTargetId: replica.id },
  });
  assert.equal(again.json.code, 'REPLICATION_DEST_INVALID');

  // The primary disappears: download and restore use the replica.
  await rm(primary.dir, { recursive: true, force: true });
  const dl = await app.inject({
    method: 'GET',
    url: `/api/backup/records/${backup.id}/download`,
    headers: { authorization: `Bearer ${admin}` },
  });
  assert.equal(dl.statusCode, 200);
  assert.equal(dl.rawPayload.length, backup.fileSize);
  await rm(join(src, 'data.txt'));
  const res = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, { token: admin, body: {} });
  const r = await waitFor(app, admin, `/api/restore/records/${res.json.data.id}`);
  assert.equal(r.status, 'success', r.errorMessage);
  assert.equal(r.sourceTargetName, 'replica');
  assert.equal(await readFile(join(src, 'data.txt'), 'utf8'), 'precious');
});
