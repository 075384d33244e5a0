import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { filesUnder } from '../engine/helpers.ts';
import { startWebdavServer } from '../helpers/rclone-servers.ts';
import { diskTarget, createTask, runAndWait, stockRestic } from './helpers.ts';
import { repositoryPassword } from '../../core/features/repositories/repository-password.ts';

const run = promisify(execFile);

async function settled(app: FastifyInstance, token: string, url: string): Promise<any> {
  const c = app.diContainer.cradle;
  await Promise.all([c.restores.idle(), c.verifications.idle()]);
  const res = await call(app, 'GET', url, { token });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

test('repository mode: restic snapshots on a disk and on WebDAV; restore, browse, verify, download, stock restic, forget, prune', async (t) => {
  const webdav = await startWebdavServer();
  t.after(() => webdav.stop());
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  const under = `${src.slice(1)}/`;
  await mkdir(join(src, 'docs/old'), { recursive: true });
  await writeFile(join(src, 'docs/a.txt'), 'first version');
  await writeFile(join(src, 'docs/old/b.txt'), 'bee');
  await writeFile(join(src, 'gone.txt'), 'gone later');
  await writeFile(join(src, 'big.bin'), randomBytes(3 * 1024 * 1024));
  const disk = await diskTarget(t, app, admin);
  const dav = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: {
      name: 'dav',
      type: 'webdav',
      config: { url: webdav.url, vendor: 'other', user: webdav.user, pass: webdav.pass, path: 'backups' },
    },
  });
  assert.equal(dav.status, 200, dav.body);
  const task = await createTask(app, admin, {
    name: 'repo',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id, dav.json.data.id],
    backupMode: 'repository',
  });
  const spare = await diskTarget(t, app, admin, 'spare');
  const refused = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, {
    token: admin,
    body: { replicationTargetIds: [spare.id] },
  });
  assert.equal(refused.json.code, 'BACKUP_TASK_REPOSITORY_REPLICATION_UNSUPPORTED');

  const first = await runAndWait(app, admin, task.id);
  assert.equal(first.status, 'success', first.errorMessage);
  assert.equal(first.backupKind, 'repository');
  assert.ok(first.fileSize >= 3 * 1024 * 1024, `the first run adds the data (${first.fileSize})`);

  await writeFile(join(src, 'docs/a.txt'), 'second version, longer');
  await rm(join(src, 'gone.txt'));
  await rename(join(src, 'docs/old'), join(src, 'docs/renamed'));
  await writeFile(join(src, 'new.txt'), 'new');
  const second = await runAndWait(app, admin, task.id);
  assert.equal(second.status, 'success', second.errorMessage);
  assert.ok(second.fileSize < 256 * 1024, `the second run adds only what changed (${second.fileSize})`);
  const copies = second.storageUploadResults.map((c: any) => c.status);
  assert.deepEqual(copies, ['success', 'success'], "a snapshot in each target's repository");

  // Metrics: what the runs read against what they added, by kind (the deduplication ratio).
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const added = Number(/backplane_backup_added_bytes_total\{type="file",kind="repository"\} (\d+)/.exec(metrics)?.[1]);
  const read = Number(/backplane_backup_source_bytes_total\{type="file",kind="repository"\} (\d+)/.exec(metrics)?.[1]);
  assert.equal(added, first.fileSize + second.fileSize);
  assert.ok(read > added, `two runs read the tree twice and added it about once (${read} read, ${added} added)`);
  const stats = (await call(app, 'GET', '/api/dashboard/stats', { token: admin })).json.data;
  assert.deepEqual(stats.deduplication, {
    records: 2,
    bytesRead: first.rawSize + second.rawSize,
    bytesAdded: first.fileSize + second.fileSize,
    ratio: Math.round(((first.rawSize + second.rawSize) / (first.fileSize + second.fileSize)) * 100) / 100,
  });
  assert.ok(stats.deduplication.ratio > 1.5, 'the second run added little of what it read');

  // Browsing shows the snapshot's tree.
  const listing = await call(app, 'GET', `/api/backup/records/${second.id}/contents?limit=1000`, { token: admin });
  const paths = listing.json.data.entries
    .map((e: { path: string }) => e.path)
    .filter((p: string) => p.startsWith(under))
    .map((p: string) => p.slice(under.length))
    .sort();
  assert.deepEqual(paths, ['big.bin', 'docs', 'docs/a.txt', 'docs/renamed', 'docs/renamed/b.txt', 'new.txt']);

  // Whole and selective restores into new folders.
  const into = await tempDir(t);
  const restore = await call(app, 'POST', `/api/backup/records/${first.id}/restore`, {
    token: admin,
    body: { targetPath: into },
  });
  const r = await settled(app, admin, `/api/restore/records/${restore.json.data.id}`);
  assert.equal(r.status, 'success', r.errorMessage);
  assert.deepEqual((await filesUnder(join(into, src))).sort(), ['big.bin', 'docs/a.txt', 'docs/old/b.txt', 'gone.txt']);
  assert.equal(await readFile(join(into, src, 'docs/a.txt'), 'utf8'), 'first version');
  const picked = await tempDir(t);
  const selective = await call(app, 'POST', `/api/backup/records/${second.id}/restore`, {
    token: admin,
    body: { targetPath: picked, selectedPaths: [`${under}docs`] },
  });
  const s = await settled(app, admin, `/api/restore/records/${selective.json.data.id}`);
  assert.equal(s.status, 'success', s.errorMessage);
  assert.deepEqual((await filesUnder(join(picked, src))).sort(), ['docs/a.txt', 'docs/renamed/b.txt']);

  // Verification: quick is restic check; deep restores into a sandbox and compares.
  for (const mode of ['quick', 'deep']) {
    const v = await call(app, 'POST', `/api/backup/records/${second.id}/verify`, { token: admin, body: { mode } });
    assert.equal(v.status, 200, v.body);
    const done = await settled(app, admin, `/api/verify/records/${v.json.data.id}`);
    assert.equal(done.status, 'success', `${mode}: ${done.errorMessage}`);
  }

  // The download is a tar of the snapshot.
  const download = await app.inject({
    method: 'GET',
    url: `/api/backup/records/${second.id}/download`,
    headers: { authorization: `Bearer ${admin}` },
  });
  assert.equal(download.statusCode, 200);
  assert.equal(download.headers['x-backup-kind'], 'repository');
  const tarDir = await tempDir(t);
  await writeFile(join(tarDir, 'snapshot.tar'), download.rawPayload);
  await run('tar', ['-xf', join(tarDir, 'snapshot.tar'), '-C', tarDir]);
  assert.equal(await readFile(join(tarDir, src, 'new.txt'), 'utf8'), 'new');

  // Replication of a repository record is refused.
  const rep = await call(app, 'POST', `/api/backup/records/${second.id}/replicate`, {
    token: admin,
    body: { destTargetId: spare.id },
  });
  assert.equal(rep.status, 400, rep.body);

  // The stock restic opens the repository on the disk, with the password the master's CLI prints.
  const { config } = app.diContainer.cradle;
  const secret = await repositoryPassword(config, task.id, disk.id);
  const repo = join(disk.dir, secret.prefix);
  const snapshots = JSON.parse(await stockRestic(secret.password, repo, ['snapshots', '--json']));
  assert.equal(snapshots.length, 2);
  assert.ok(
    !JSON.stringify(await call(app, 'GET', `/api/backup/records/${second.id}`, { token: admin })).includes(
      secret.password,
    ),
  );

  // Deleting a record forgets its snapshot; the leader's prune frees what no snapshot needs.
  const del = await call(app, 'DELETE', `/api/backup/records/${first.id}`, { token: admin });
  assert.equal(del.status, 200, del.body);
  assert.equal(JSON.parse(await stockRestic(secret.password, repo, ['snapshots', '--json'])).length, 1);
  assert.equal(await app.diContainer.cradle.recordDeleter.pruneRepositories(), 2, 'both repositories pruned');
  await stockRestic(secret.password, repo, ['check']);
});
