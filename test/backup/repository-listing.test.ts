import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait, stockRestic } from './helpers.ts';
import { repositoryPassword } from '../../core/features/repositories/repository-password.ts';

// A repository run's file list is walked beside restic (one restic process per run) and kept
// only when it counts what restic stored; otherwise it is read from the snapshot. Both must
// give the snapshot's own listing.

const FROM_SNAPSHOT = 'the file list is read from snapshot';

/** The snapshot's nodes under `src` as the stock `restic ls` lists them: path, type and size. */
async function stockListing(password: string, repo: string, snapshot: string, src: string): Promise<string[]> {
  return (await stockRestic(password, repo, ['ls', '--json', snapshot]))
    .split('\n')
    .filter((l) => l.includes('"struct_type":"node"'))
    .map((l) => JSON.parse(l) as { path: string; type: string; size?: number })
    .filter((n) => n.path === src || n.path.startsWith(`${src}/`))
    .map((n) => `${n.path.slice(1)} ${n.type === 'dir' ? 'directory' : n.type} ${n.type === 'file' ? n.size : 0}`)
    .sort();
}

async function recordListing(app: FastifyInstance, token: string, recordId: number): Promise<string[]> {
  const res = await call(app, 'GET', `/api/backup/records/${recordId}/contents?limit=1000`, { token });
  assert.equal(res.status, 200, res.body);
  return res.json.data.entries
    .map((e: { path: string; type: string; size: number }) => `${e.path} ${e.type} ${e.size}`)
    .sort();
}

test('repository mode: the file list walked beside restic is the snapshot listing, or the snapshot is listed instead', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await mkdir(join(src, 'a/b/c'), { recursive: true });
  await writeFile(join(src, 'a/b/c/deep.txt'), 'deep');
  await writeFile(join(src, 'a/one.txt'), 'one');
  await writeFile(join(src, 'x.cache'), 'excluded in both');
  await writeFile(join(src, '.cache'), 'excluded by restic only: its `*` matches a leading dot');
  await symlink('a/one.txt', join(src, 'link'));
  const disk = await diskTarget(t, app, admin);
  const { config } = app.diContainer.cradle;

  const plain = await createTask(app, admin, {
    name: 'walked',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    backupMode: 'repository',
    excludePatterns: ['x.cache'],
  });
  const walked = await runAndWait(app, admin, plain.id);
  assert.equal(walked.status, 'success', walked.errorMessage);
  assert.ok(!walked.logContent.includes(FROM_SNAPSHOT), `the walk matched restic's counts: ${walked.logContent}`);
  const secret = await repositoryPassword(config, plain.id, disk.id);
  const snapshot = walked.storageUploadResults[0].snapshotId;
  assert.match(snapshot, /^[0-9a-f]{64}$/, 'the copy names its snapshot');
  const stock = await stockListing(secret.password, join(disk.dir, secret.prefix), snapshot, src);
  assert.ok(stock.some((l) => l.endsWith('link symlink 0')) && stock.some((l) => l.includes('.cache file')));
  assert.deepEqual(await recordListing(app, admin, walked.id), stock);

  // `*cache` excludes `.cache` in restic and not in the walk: the counts differ, the snapshot is listed.
  const differing = await createTask(app, admin, {
    name: 'listed',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    backupMode: 'repository',
    excludePatterns: ['*cache'],
  });
  const listed = await runAndWait(app, admin, differing.id);
  assert.equal(listed.status, 'success', listed.errorMessage);
  assert.ok(listed.logContent.includes(FROM_SNAPSHOT), listed.logContent);
  const other = await repositoryPassword(config, differing.id, disk.id);
  const fromSnapshot = await stockListing(
    other.password,
    join(disk.dir, other.prefix),
    listed.storageUploadResults[0].snapshotId,
    src,
  );
  assert.ok(!fromSnapshot.some((l) => l.includes('cache')));
  assert.deepEqual(await recordListing(app, admin, listed.id), fromSnapshot);
});
