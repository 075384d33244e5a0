import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, nodeWithToken, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';
import { BackupRecordEntity } from '../../core/db/entities/backup-record.ts';
import { AgentCommandEntity } from '../../core/db/entities/agent-command.ts';

test('a restore placed on a node is cancelled before its agent takes it: cancelled, its command withdrawn; 403 for viewers, 409 once ended, 404 unknown', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer');
  const node = await nodeWithToken(app, 'edge');
  const beat = await call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': node.token }, body: { hostname: 'h' } });
  assert.equal(beat.status, 200, beat.body);
  // A finished backup of that node (the agent side of making it is covered elsewhere).
  const em = app.diContainer.cradle.orm.em.fork();
  const backup = em.create(BackupRecordEntity, { taskId: 1, taskName: 'edge files', type: 'file', status: 'success', nodeId: node.id, startedAt: new Date(), completedAt: new Date(), storagePath: 'x/1.tar.zst', fileName: '1.tar.zst', fileSize: 10 });
  await em.flush();
  const events: string[] = [];
  t.after(app.diContainer.cradle.events.subscribe((e) => events.push(e.type)));

  const started = await call(app, 'POST', `/api/backup/records/${backup.id}/restore`, { token: admin, body: { targetPath: '/tmp/restore-here' } });
  assert.equal(started.status, 200, started.body);
  const id = started.json.data.id;
  assert.equal(started.json.data.status, 'queued');

  assert.equal((await call(app, 'POST', `/api/restore/records/${id}/cancel`, { token: viewer.token })).status, 403);
  const res = await call(app, 'POST', `/api/restore/records/${id}/cancel`, { token: admin });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.data.status, 'cancelled');
  assert.match(res.json.data.errorMessage, /cancelled by admin/);
  const commands = await app.diContainer.cradle.orm.em.fork().find(AgentCommandEntity, { recordKind: 'restore', recordId: id });
  assert.deepEqual(commands.map((c) => c.status), ['failed']);
  const poll = await call(app, 'POST', '/api/agent/commands/poll', { headers: { 'x-agent-token': node.token }, body: {} });
  assert.equal(poll.json.data.command, null, 'the agent is given nothing to do');
  assert.ok(events.includes('restore_cancelled'), events.join(', '));
  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'restore_record', action: 'cancel' } });
  assert.deepEqual(audit.json.data.map((a: any) => String(a.targetId)), [String(id)]);

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
  const task = await createTask(app, admin, { name: 'Files', type: 'file', sourcePaths: [src], storageTargetIds: [target.id] });
  const backup = await runAndWait(app, admin, task.id);
  const verify = await call(app, 'POST', `/api/backup/records/${backup.id}/verify`, { token: admin, body: { mode: 'quick' } });
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
