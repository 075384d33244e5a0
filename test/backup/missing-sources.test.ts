import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { filesUnder } from '../engine/helpers.ts';
import { BackupRecordEntity } from '../../core/db/entities/backup-record.ts';
import { diskTarget, createTask, runAndWait } from './helpers.ts';

/**
 * A file task whose paths are all gone backs up nothing: the run fails, stores no object and
 * sends no backup_success. Some paths gone is a success that says so in its record. A
 * selective restore of paths the backup does not hold is refused, not an empty success.
 */

async function allObjects(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true }))
    if (!e.isDirectory()) out.push(join(e.parentPath, e.name));
  return out;
}

test('file task: every source path missing fails without an object or a backup_success; some missing succeeds with warnings in the record', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'here.txt'), 'present');
  const disk = await diskTarget(t, app, admin);
  const events: string[] = [];
  t.after(app.diContainer.cradle.events.subscribe((e) => events.push(e.type)));

  const gone = await createTask(app, admin, {
    name: 'gone',
    type: 'file',
    sourcePaths: [join(src, 'nope-1'), join(src, 'nope-2')],
    storageTargetIds: [disk.id],
  });
  const failed = await runAndWait(app, admin, gone.id);
  assert.equal(failed.status, 'failed');
  assert.match(failed.errorMessage, /nothing to back up: no source path could be read: .*nope-1.*nope-2/);
  assert.match(failed.logContent, /WARN .*nope-1/);
  assert.ok(events.includes('backup_failed'));
  assert.ok(!events.includes('backup_success'), 'no success is announced for an empty backup');
  assert.deepEqual(await allObjects(disk.dir), [], 'no object (nor a temporary one) is kept');
  const taskView = await call(app, 'GET', `/api/backup/tasks/${gone.id}`, { token: admin });
  assert.equal(taskView.json.data.lastStatus, 'failed');

  events.length = 0;
  const some = await createTask(app, admin, {
    name: 'some',
    type: 'file',
    sourcePaths: [join(src, 'here.txt'), join(src, 'missing-dir')],
    storageTargetIds: [disk.id],
  });
  const ok = await runAndWait(app, admin, some.id);
  assert.equal(ok.status, 'success', ok.errorMessage);
  assert.match(ok.errorMessage, /^1 warning: skipped .*missing-dir: ENOENT/, 'the record itself carries the warning');
  assert.match(ok.logContent, /WARN .*missing-dir/);
  assert.deepEqual(
    events.filter((e) => e.startsWith('backup_')),
    ['backup_success'],
  );
  const contents = await call(app, 'GET', `/api/backup/records/${ok.id}/contents`, { token: admin });
  assert.ok(contents.json.data.entries.some((e: { path: string }) => e.path.endsWith('here.txt')));

  // A clean run keeps errorMessage empty.
  const clean = await createTask(app, admin, {
    name: 'clean',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  assert.equal((await runAndWait(app, admin, clean.id)).errorMessage, '');
});

test('selective restore: paths the backup does not hold are refused up front (manifest) or fail the restore (no manifest)', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await mkdir(join(src, 'dir'));
  await writeFile(join(src, 'dir/a.txt'), 'a');
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'sel',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const backup = await runAndWait(app, admin, task.id);
  assert.equal(backup.status, 'success', backup.errorMessage);
  const into = await tempDir(t);
  const base = src.slice(1);

  const none = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, {
    token: admin,
    body: { targetPath: into, selectedPaths: [`${base}/nothing-here`] },
  });
  assert.equal(none.status, 400, none.body);
  assert.equal(none.json.code, 'RESTORE_NOTHING_SELECTED');
  assert.match(none.json.message, /nothing-here/);
  // A misspelt file under an existing folder is not matched by the folder.
  const typo = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, {
    token: admin,
    body: { targetPath: into, selectedPaths: [`${base}/dir/a.txt`, `${base}/dir/b.txt`] },
  });
  assert.equal(typo.json.code, 'RESTORE_NOTHING_SELECTED');
  assert.match(typo.json.message, /dir\/b\.txt/);
  assert.doesNotMatch(typo.json.message, /a\.txt/);
  assert.deepEqual(await filesUnder(into), []);

  // Without a stored file list the restore itself finds out, before extracting anything.
  await app.diContainer.cradle.orm.em
    .fork()
    .nativeUpdate(BackupRecordEntity, { id: backup.id }, { hasManifest: false });
  const late = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, {
    token: admin,
    body: { targetPath: into, selectedPaths: [`${base}/nothing-here`] },
  });
  assert.equal(late.status, 200, late.body);
  await app.diContainer.cradle.restores.idle();
  const record = (await call(app, 'GET', `/api/restore/records/${late.json.data.id}`, { token: admin })).json.data;
  assert.equal(record.status, 'failed');
  assert.match(record.errorMessage, /selectedPaths: ".*nothing-here" is not in this backup; nothing was restored/);
  assert.deepEqual(await filesUnder(into), []);

  // A selection that exists still restores.
  const good = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, {
    token: admin,
    body: { targetPath: into, selectedPaths: [`${base}/dir/a.txt`] },
  });
  await app.diContainer.cradle.restores.idle();
  assert.equal(
    (await call(app, 'GET', `/api/restore/records/${good.json.data.id}`, { token: admin })).json.data.status,
    'success',
  );
  assert.deepEqual(await filesUnder(into), [`${base}/dir/a.txt`]);
});
