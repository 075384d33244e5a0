import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { build, call, nodeWithToken, setupAdmin, tempDir } from '../helpers/build.ts';
import { createTask, diskTarget, runAndWait } from '../backup/helpers.ts';
import { NotificationEventEntity } from '../../core/db/entities/notification.ts';
import { NodeEntity } from '../../core/db/entities/node.ts';
import { BackupTaskEntity } from '../../core/db/entities/backup-task.ts';
import { rtoAlert, replicationAlert } from '../../core/recovery/recovery-alerts.ts';
import { isOutdated } from '../../core/agent-protocol/node-monitor.ts';

/** Every source of alerts writes its event into the outbox, with its fields, subject and link. */

const QUIET = { storageHealthIntervalSeconds: 0, slaScanIntervalSeconds: 0 };

async function outbox(app: FastifyInstance, type?: string) {
  return app.diContainer.cradle.orm.em
    .fork()
    .find(NotificationEventEntity, type ? { type } : {}, { orderBy: { id: 'asc' } });
}

const fieldsOf = (e: { fields: string }) => JSON.parse(e.fields) as Record<string, unknown>;

test('restores and verifications raise their outcome alerts', async (t) => {
  const { app } = await build(t, { config: QUIET });
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'a.txt'), 'alpha');
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'files',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const record = await runAndWait(app, admin, task.id);
  const c = app.diContainer.cradle;

  const restore = await call(app, 'POST', `/api/backup/records/${record.id}/restore`, { token: admin, body: {} });
  assert.equal(restore.status, 200, restore.body);
  await c.restores.idle();
  const [restored] = await outbox(app, 'restore_success');
  assert.ok(restored, 'restore_success raised');
  assert.deepEqual(
    { ...fieldsOf(restored), error: undefined },
    {
      restoreId: restore.json.data.id,
      backupRecordId: record.id,
      taskId: task.id,
      taskName: 'files',
      status: 'success',
      error: undefined,
      nodeId: 0,
    },
  );
  assert.equal(restored.subject, `task:${task.id}`);
  assert.equal(restored.linkPath, `/api/restore/records/${restore.json.data.id}`);

  const verify = await call(app, 'POST', `/api/backup/records/${record.id}/verify`, {
    token: admin,
    body: { mode: 'deep' },
  });
  assert.equal(verify.status, 200, verify.body);
  await c.verifications.idle();
  const [verified] = await outbox(app, 'verify_success');
  assert.ok(verified, 'verify_success raised');
  assert.equal(fieldsOf(verified).mode, 'deep');
  assert.equal(typeof fieldsOf(verified).restoreSeconds, 'number');
  assert.equal((await outbox(app, 'rto_exceeded')).length, 0, 'no objective, nothing exceeded');

  // The backup's artifact gone from the target: a restore fails and says so.
  await rm(disk.dir, { recursive: true, force: true });
  await mkdir(disk.dir);
  await call(app, 'POST', `/api/backup/records/${record.id}/restore`, { token: admin, body: {} });
  await c.restores.idle();
  const [failed] = await outbox(app, 'restore_failed');
  assert.ok(failed, 'restore_failed raised');
  assert.equal(failed.severity, 'error');
  assert.ok(String(fieldsOf(failed).error).length > 0);
});

test("rto_exceeded: a deep verification slower than the task's objective; replication_failed carries the targets", () => {
  const base = {
    id: 9,
    taskId: 3,
    taskName: 'db',
    backupRecordId: 4,
    mode: 'deep',
    status: 'success',
    restoreMs: 150_000,
    summary: '',
    errorMessage: '',
  } as never;
  const alert = rtoAlert(base, 2);
  assert.equal(alert?.type, 'rto_exceeded');
  assert.deepEqual(alert?.fields, {
    taskId: 3,
    taskName: 'db',
    verifyId: 9,
    backupRecordId: 4,
    rtoMinutes: 2,
    measuredMinutes: 2.5,
  });
  assert.equal(rtoAlert(base, 3), undefined, 'within the objective');
  assert.equal(rtoAlert(base, 0), undefined, 'no objective');
  assert.equal(
    rtoAlert({ ...(base as object), mode: 'quick' } as never, 2),
    undefined,
    'a quick verification measures no restore',
  );
  assert.equal(
    rtoAlert({ ...(base as object), status: 'failed' } as never, 2),
    undefined,
    'a failed restore measured nothing',
  );
  const replication = replicationAlert({
    id: 1,
    backupRecordId: 4,
    taskId: 3,
    taskName: 'db',
    sourceTargetId: 5,
    destTargetId: 6,
    destTargetName: 'offsite',
    status: 'failed',
    errorMessage: 'disk full',
  } as never);
  assert.equal(replication?.type, 'replication_failed');
  assert.deepEqual(replication?.fields, {
    replicationId: 1,
    backupRecordId: 4,
    taskId: 3,
    taskName: 'db',
    sourceTargetId: 5,
    destTargetId: 6,
    destTargetName: 'offsite',
    status: 'failed',
    error: 'disk full',
  });
  assert.equal(replicationAlert({ status: 'success' } as never), undefined);
});

test('storage health: unhealthy and recovered once per transition; capacity warning at 85 % of the quota, once a day', async (t) => {
  const { app } = await build(t, { config: QUIET });
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'big.bin'), Buffer.alloc(64 * 1024, 7));
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'big',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    compression: 'none',
    encrypt: false,
  });
  const record = await runAndWait(app, admin, task.id);
  const health = app.diContainer.cradle.storageHealth;

  await health.runOnce();
  assert.equal((await outbox(app, 'storage_capacity_warning')).length, 0, 'no quota, no warning');
  const quota = Math.ceil(record.fileSize / 0.9);
  assert.equal(
    (await call(app, 'PUT', `/api/storage-targets/${disk.id}`, { token: admin, body: { quotaBytes: quota } })).status,
    200,
  );
  await health.runOnce();
  await health.runOnce();
  const warnings = await outbox(app, 'storage_capacity_warning');
  assert.equal(warnings.length, 1, 'once a day, not once a pass');
  assert.equal(fieldsOf(warnings[0]!).source, 'quota');
  assert.equal(fieldsOf(warnings[0]!).usedBytes, record.fileSize);
  assert.equal(fieldsOf(warnings[0]!).totalBytes, quota);
  assert.equal(warnings[0]!.subject, `storage:${disk.id}`);

  await rm(disk.dir, { recursive: true, force: true });
  await health.runOnce();
  await health.runOnce();
  await mkdir(disk.dir);
  await health.runOnce();
  assert.deepEqual(
    (await outbox(app))
      .map((e) => e.type)
      .filter((type) => type.startsWith('storage_') && type !== 'storage_capacity_warning'),
    ['storage_unhealthy', 'storage_recovered'],
  );
});

test('nodes: offline and back online once per transition, a new node is no news; an outdated agent once a day', async (t) => {
  const { app } = await build(t, { config: { ...QUIET, nodeOfflineSeconds: 45 } });
  await setupAdmin(app);
  const node = await nodeWithToken(app, 'edge-1');
  const monitor = app.diContainer.cradle.nodeMonitor;
  const em = app.diContainer.cradle.orm.em.fork();
  const seen = async (at: Date, agentVersion = '0.1.0') => {
    await em.nativeUpdate(NodeEntity, { id: node.id }, { lastSeenAt: at, agentVersion });
  };
  const now = Date.now();
  await monitor.runOnce(new Date(now));
  assert.equal((await outbox(app)).length, 0, 'a node never seen is not offline news');
  await seen(new Date(now));
  await monitor.runOnce(new Date(now + 1000));
  assert.equal((await outbox(app)).length, 0, 'its first heartbeat is not news either');
  await monitor.runOnce(new Date(now + 60_000));
  await monitor.runOnce(new Date(now + 90_000));
  await seen(new Date(now + 100_000));
  await monitor.runOnce(new Date(now + 101_000));
  const events = await outbox(app);
  assert.deepEqual(
    events.map((e) => e.type),
    ['node_offline', 'node_online'],
  );
  assert.deepEqual(fieldsOf(events[0]!).nodeName, 'edge-1');
  assert.equal(events[0]!.linkPath, `/api/nodes/${node.id}`);

  await seen(new Date(now + 200_000), '0.0.9');
  await monitor.runOnce(new Date(now + 201_000));
  await monitor.runOnce(new Date(now + 202_000));
  const outdated = await outbox(app, 'agent_outdated');
  assert.equal(outdated.length, 1);
  assert.deepEqual(
    { agentVersion: fieldsOf(outdated[0]!).agentVersion, nodeId: fieldsOf(outdated[0]!).nodeId },
    { agentVersion: '0.0.9', nodeId: node.id },
  );
  assert.equal(isOutdated('0.1.9', '0.1.0'), false, 'a patch release is not outdated');
  assert.equal(isOutdated('v0.0.9', '0.1.0'), true);
  assert.equal(isOutdated('1.0.0', '0.9.0'), false);
  assert.equal(isOutdated('dev', '0.1.0'), false, 'an unknown version is not judged');
});

test('nodes: a pass over more nodes than one page records every transition and announces only the news', async (t) => {
  const { app } = await build(t, { config: { ...QUIET, nodeOfflineSeconds: 45 } });
  await setupAdmin(app);
  const em = app.diContainer.cradle.orm.em.fork();
  const now = Date.now();
  // 1,201 nodes: 1,100 heard from just now (first sighting: recorded, no news), 101 announced
  // online but silent for a minute (offline: news each). More than two pages of 500.
  for (let i = 0; i < 1201; i++) {
    const fresh = i < 1100;
    em.create(NodeEntity, {
      name: `fleet-${i}`,
      isLocal: false,
      tokenHash: `fleet-hash-${i}`,
      lastSeenAt: new Date(fresh ? now : now - 60_000),
      alertStatus: fresh ? '' : 'online',
    });
  }
  await em.flush();
  await app.diContainer.cradle.nodeMonitor.runOnce(new Date(now + 1000));
  const statuses = await em
    .fork()
    .find(NodeEntity, { isLocal: false }, { fields: ['name', 'alertStatus'], orderBy: { id: 'asc' } });
  assert.equal(statuses.filter((n) => n.alertStatus === 'online').length, 1100);
  assert.equal(statuses.filter((n) => n.alertStatus === 'offline').length, 101);
  const offline = await outbox(app, 'node_offline');
  assert.equal(offline.length, 101);
  assert.equal((await outbox(app, 'node_online')).length, 0, 'a first sighting is no news');
  await app.diContainer.cradle.nodeMonitor.runOnce(new Date(now + 2000));
  assert.equal((await outbox(app)).length, 101, 'a second pass finds nothing new');
});

test('SLA: a task past its RPO raises sla_violation once per 6 h while it lasts; a success ends it', async (t) => {
  const { app } = await build(t, { config: QUIET });
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'a.txt'), 'alpha');
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'hourly',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    slaHoursRpo: 1,
  });
  await createTask(app, admin, { name: 'no-objective', type: 'file', sourcePaths: [src], storageTargetIds: [disk.id] });
  const scan = app.diContainer.cradle.slaScan;
  const now = Date.now();
  assert.equal(await scan.runOnce(new Date(now)), 0, 'a new task has its hour');
  assert.equal(await scan.runOnce(new Date(now + 2 * 3600_000)), 1);
  assert.equal(await scan.runOnce(new Date(now + 3 * 3600_000)), 0, 'not again within 6 h');
  assert.equal(await scan.runOnce(new Date(now + 9 * 3600_000)), 1, 'again after 6 h while it lasts');
  const [first] = await outbox(app, 'sla_violation');
  assert.deepEqual(
    { ...fieldsOf(first!), hoursSinceLastSuccess: undefined },
    {
      taskId: task.id,
      taskName: 'hourly',
      nodeId: 0,
      nodeName: 'master',
      slaHoursRpo: 1,
      hoursSinceLastSuccess: undefined,
      neverSucceeded: true,
    },
  );
  assert.ok(Number(fieldsOf(first!).hoursSinceLastSuccess) >= 2);

  await runAndWait(app, admin, task.id);
  assert.equal(await scan.runOnce(new Date(Date.now() + 30 * 60_000)), 0, 'a fresh success meets the objective');
  await app.diContainer.cradle.orm.em.fork().nativeUpdate(BackupTaskEntity, { id: task.id }, { enabled: false });
  assert.equal(await scan.runOnce(new Date(now + 30 * 3600_000)), 0, 'a disabled task is not watched');
});
