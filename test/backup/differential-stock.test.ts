import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, setupAdmin, tempDir } from '../helpers/build.ts';
import { filesUnder } from '../engine/helpers.ts';
import { diskTarget, createTask, runAndWait } from './helpers.ts';

const run = promisify(execFile);

/** The first ```sh block of docs/differential.md's "Restoring by hand". */
async function stockCommands(): Promise<string> {
  const doc = await readFile(new URL('../../docs/differential.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Restoring by hand'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the doc has the commands');
  return block[1]!;
}

test('a chain restores with the stock tools exactly as docs/differential.md gives them', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'kept.txt'), 'kept');
  await writeFile(join(src, 'changed.txt'), 'before');
  await writeFile(join(src, 'deleted.txt'), 'deleted later');
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'stock',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    backupMode: 'differential',
    compression: 'zstd',
    encrypt: true,
  });
  const full = await runAndWait(app, admin, task.id);
  await writeFile(join(src, 'changed.txt'), 'after, longer');
  await rm(join(src, 'deleted.txt'));
  await writeFile(join(src, 'added.txt'), 'added');
  const diff = await runAndWait(app, admin, task.id);
  assert.deepEqual([diff.backupKind, diff.baseRecordId], ['differential', full.id]);

  const work = await tempDir(t);
  for (const [record, name] of [
    [full, 'full.tar.zst.age'],
    [diff, 'diff.tar.zst.age'],
  ] as const) {
    // The artifact as stored (what a download answers, byte for byte).
    await copyFile(join(disk.dir, record.storagePath), join(work, name));
  }
  await copyFile(join(app.diContainer.cradle.config.dataDir, 'backup.agekey'), join(work, 'backup.agekey'));
  const restore = join(work, 'restore');
  await run('bash', ['-c', `set -euo pipefail\n${await stockCommands()}`], {
    cwd: work,
    env: { ...process.env, RESTORE: restore, FULL: 'full.tar.zst.age', DIFF: 'diff.tar.zst.age' },
  });
  const restored = join(restore, src);
  assert.deepEqual((await filesUnder(restored)).sort(), ['added.txt', 'changed.txt', 'kept.txt']);
  assert.equal(await readFile(join(restored, 'changed.txt'), 'utf8'), 'after, longer');
});
