import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, nodeWithToken, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget } from '../backup/helpers.ts';
import { strandInFolder } from '../helpers/stranded-upload.ts';
import { BackupRecordEntity } from '../../core/db/entities/backup-record.ts';

/** Every file below `dir`, as sorted paths relative to it. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

const temporaries = (paths: string[]): string[] => paths.filter((p) => /(^|\/)\.[^/]*\.[0-9a-f]{16}\.partial$/.test(p));

test('the periodic sweep removes temporary objects older than a day on every enabled target, keeping fresh ones and those of running uploads', async (t) => {
  const dataDir = await tempDir(t);
  const first = await build(t, { dataDir });
  const token = await setupAdmin(first.app);
  const disk = await diskTarget(t, first.app, token);
  const rcloneDir = await tempDir(t);
  const remote = await call(first.app, 'POST', '/api/storage-targets', {
    token,
    body: { name: 'remote', type: 'rclone', config: { backend: 'local', path: rcloneDir } },
  });
  assert.equal(remote.status, 200, remote.body);
  const em = first.app.diContainer.cradle.orm.em.fork();
  const runningKey = 'busy/2026/11/21/7-20261121T000000Z.tar.zst.age';
  // An agent's run of more than a day (start-up recovery leaves placed runs to their agents):
  // its temporary has not been touched for two days, yet it is live.
  const node = await nodeWithToken(first.app);
  em.create(BackupRecordEntity, {
    nodeId: node.id,
    taskId: 1,
    taskName: 'busy',
    type: 'file',
    status: 'running',
    startedAt: new Date(Date.now() - 48 * 3600_000),
    storagePath: runningKey,
    fileName: '7-20261121T000000Z.tar.zst.age',
  });
  await em.flush();
  await first.app.close();

  const twoDaysAgo = new Date(Date.now() - 48 * 3600_000);
  const hourAgo = new Date(Date.now() - 3600_000);
  for (const dir of [disk.dir, rcloneDir]) {
    const strand = strandInFolder(dir);
    await strand('crashed/2026/11/20/3-20261120T000000Z.tar.zst.age', twoDaysAgo);
    await strand('recent/2026/11/23/5-20261123T000000Z.tar.zst.age', hourAgo);
    await strand(runningKey, twoDaysAgo);
    await writeFile(join(dir, 'kept.bin'), 'an object, not a temporary');
  }
  const before = { disk: await files(disk.dir), remote: await files(rcloneDir) };
  assert.equal(temporaries(before.disk).length, 3);
  assert.equal(temporaries(before.remote).length, 3);

  // The sweep runs at start-up when its interval is set (tests otherwise turn it off).
  const second = await build(t, { dataDir, config: { tempSweepIntervalSeconds: 3600 } });
  await second.app.ready();
  await second.app.diContainer.cradle.temporarySweep.runOnce();
  for (const [name, dir] of [
    ['local_disk', disk.dir],
    ['rclone', rcloneDir],
  ] as const) {
    const after = await files(dir);
    assert.ok(after.includes('kept.bin'), `${name}: the object stays`);
    assert.ok(
      !after.some((p) => p.startsWith('crashed/')),
      `${name}: the two-day-old temporary (and its empty folders) went: ${after.join(', ')}`,
    );
    assert.equal(
      temporaries(after.filter((p) => p.startsWith('recent/'))).length,
      1,
      `${name}: the hour-old temporary stays`,
    );
    assert.equal(
      temporaries(after.filter((p) => p.startsWith('busy/'))).length,
      1,
      `${name}: the running upload's temporary stays`,
    );
  }
  assert.deepEqual(
    await second.app.diContainer.cradle.temporarySweep.runOnce(),
    { removed: 0, failedTargets: [] },
    'a second pass finds nothing more',
  );
});
