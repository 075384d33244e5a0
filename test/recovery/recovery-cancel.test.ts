import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { build, call, nodeWithToken, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';
import { BackupRecordEntity } from '../../core/db/entities/backup-record.ts';
import { AgentCommandEntity } from '../../core/db/entities/agent-command.ts';
import { startWebdavServer } from '../helpers/rclone-servers.ts';
import { waitFor } from '../helpers/agent-process.ts';

test('a restore on a node is cancelled before its agent takes it: cancelled, command withdrawn; 403 for viewers, 409 once ended, 404 unknown', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer');
  const node = await nodeWithToken(app, 'edge');
  const beat = await call(app, 'POST', '/api/agent/heartbeat', {
    headers: { 'x-agent-token': node.token },
    body: { hostname: 'h' },
  });
  assert.equal(beat.status, 200, beat.body);
  // A finished backup of that node (the agent side of making it is covered elsewhere).
  const em = app.diContainer.cradle.orm.em.fork();
  const backup = em.create(BackupRecordEntity, {
    taskId: 1,
    taskName: 'edge files',
    type: 'file',
    status: 'success',
    nodeId: node.id,
    startedAt: new Date(),
    completedAt: new Date(),
    storagePath: 'x/1.tar.zst',
    fileName: '1.tar.zst',
    fileSize: 10,
  });
  await em.flush();
  const events: string[] = [];
  t.after(app.diContainer.cradle.events.subscribe((e) => events.push(e.type)));

  const started = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, {
    token: admin,
    body: { targetPath: '/tmp/restore-here' },
  });
  assert.equal(started.status, 200, started.body);
  const id = started.json.data.id;
  assert.equal(started.json.data.state, 'queued');

  assert.equal((await call(app, 'POST', `/api/restore/records/${id}/cancel`, { token: viewer.token })).status, 403);
  const res = await call(app, 'POST', `/api/restore/records/${id}/cancel`, { token: admin });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.data.status, 'cancelled');
  assert.match(res.json.data.errorMessage, /cancelled by admin/);
  const commands = await app.diContainer.cradle.orm.em
    .fork()
    .find(AgentCommandEntity, { recordKind: 'restore', recordId: id });
  assert.deepEqual(
    commands.map((c) => c.status),
    ['failed'],
  );
  const poll = await call(app, 'POST', '/api/agent/commands/poll', {
    headers: { 'x-agent-token': node.token },
    body: {},
  });
  assert.equal(poll.json.data.command, null, 'the agent is given nothing to do');
  assert.ok(events.includes('restore_cancelled'), events.join(', '));
  const audit = await call(app, 'GET', '/api/audit-logs', {
    token: admin,
    query: { category: 'restore_record', action: 'cancel' },
  });
  assert.deepEqual(
    audit.json.data.items.map((a: any) => String(a.targetId)),
    [String(id)],
  );

  const again = await call(app, 'POST', `/api/restore/records/${id}/cancel`, { token: admin });
  assert.equal(again.status, 409);
  assert.equal(again.json.code, 'RESTORE_RECORD_NOT_ACTIVE');
  const unknown = await call(app, 'POST', '/api/restore/records/99999/cancel', { token: admin });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.code, 'RESTORE_RECORD_NOT_FOUND');
});

test('verification cancel: 409 once finished, 404 unknown, 403 for viewers', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer');
  const target = await diskTarget(t, app, admin);
  const src = await tempDir(t);
  await writeFile(join(src, 'a.txt'), 'a');
  const task = await createTask(app, admin, {
    name: 'Files',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
  });
  const backup = await runAndWait(app, admin, task.id);
  const verify = await call(app, 'POST', `/api/backup/records/${backup.id}/verify`, {
    token: admin,
    body: { mode: 'quick' },
  });
  assert.equal(verify.status, 200, verify.body);
  await app.diContainer.cradle.verifications.idle();
  const id = verify.json.data.id;
  assert.equal((await call(app, 'POST', `/api/verify/records/${id}/cancel`, { token: viewer.token })).status, 403);
  const res = await call(app, 'POST', `/api/verify/records/${id}/cancel`, { token: admin });
  assert.equal(res.status, 409);
  assert.equal(res.json.code, 'VERIFY_RECORD_NOT_ACTIVE');
  assert.equal((await call(app, 'GET', `/api/verify/records/${id}`, { token: admin })).json.data.status, 'success');
  const unknown = await call(app, 'POST', '/api/verify/records/99999/cancel', { token: admin });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.code, 'VERIFY_RECORD_NOT_FOUND');
});

// The bound is generous (the run takes about 2 s): without the abort reaching the read, a cancel
// waits for rclone's own 2-minute command deadline, which is the defect this test exists for.
test('a verification stalled on an unresponsive storage server is cancelled while it runs: cancelled, its rclone child gone', {
  timeout: 60_000,
}, async (t) => {
  const webdav = await startWebdavServer();
  t.after(() => webdav.stop());
  // Accepts connections and requests, never answers: rclone's read waits (a real, bounded stall).
  const stalled: ServerResponse[] = [];
  const blackHole = createServer((_req, res) => void stalled.push(res));
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const res of stalled) res.destroy();
    blackHole.close();
  });
  const holeUrl = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}/`;

  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'data');
  const config = { url: webdav.url, vendor: 'other', user: webdav.user, pass: webdav.pass, path: 'backups' };
  const target = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { name: 'nas', type: 'webdav', config },
  });
  assert.equal(target.status, 200, target.body);
  const task = await createTask(app, admin, {
    name: 'nas files',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.json.data.id],
  });
  const backup = await runAndWait(app, admin, task.id);
  assert.equal(backup.status, 'success', backup.errorMessage);
  const moved = await call(app, 'PUT', `/api/storage-targets/${target.json.data.id}`, {
    token: admin,
    body: { config: { ...config, url: holeUrl, pass: '********' } },
  });
  assert.equal(moved.status, 200, moved.body);

  const verify = await call(app, 'POST', `/api/backup/records/${backup.id}/verify`, {
    token: admin,
    body: { mode: 'quick' },
  });
  assert.equal(verify.status, 200, verify.body);
  const id = verify.json.data.id;
  await waitFor('the verification to wait on the storage server', async () =>
    stalled.length > 0 &&
    (await call(app, 'GET', `/api/verify/records/${id}`, { token: admin })).json.data.status === 'running'
      ? true
      : undefined,
  );
  assert.ok((await rcloneChildren(webdav.pid)).length > 0, 'an rclone child is reading');

  const res = await call(app, 'POST', `/api/verify/records/${id}/cancel`, { token: admin });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.data.status, 'cancelled');
  assert.match(res.json.data.errorMessage, /cancelled by admin/);
  await waitFor(
    'the rclone child to be gone',
    async () => ((await rcloneChildren(webdav.pid)).length === 0 ? true : undefined),
    10_000,
  );
});

/** rclone processes the app (in this test process) started; `server` is the test's own WebDAV server. */
async function rcloneChildren(server: number): Promise<number[]> {
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'pid=,ppid=,comm=']);
  return stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => Number(f[1]) === process.pid && f[2] === 'rclone' && Number(f[0]) !== server)
    .map((f) => Number(f[0]));
}
