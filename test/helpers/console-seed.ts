import type { TestContext } from 'node:test';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from './agent-process.ts';
import { apiOk } from './console.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

export interface ConsoleData {
  targetId: number;
  secondTargetId: number;
  taskId: number;
  recordId: number;
  /** A repository-mode (restic) record of a second task. */
  repositoryRecordId: number;
  restoreId: number;
  verificationId: number;
  replicationId: number;
  nodeId: number;
  channelId: number;
  templateId: number;
  userId: number;
  apiKeyId: number;
}

/** Polls GET `path` until its `state` is final; fails unless it is `success`. */
async function settled(url: string, token: string, path: string): Promise<void> {
  const state = await waitFor(
    `${path} to finish`,
    async () => {
      const s = (await apiOk(url, 'GET', token, path)).state as string;
      return s === 'queued' || s === 'running' ? undefined : s;
    },
    30_000,
  );
  if (state !== 'success') throw new Error(`${path} ended ${state}`);
}

/**
 * Something on every console page, made over the API as the admin: two local_disk targets, a file
 * task with a successful record, a repository-mode task with one, a restore, a verification and a replication of it, a node, a
 * webhook channel pointed at a receiver on 127.0.0.1 (stopped when the test ends), a template, a
 * viewer user and an API key. `work` is a temp dir the targets and the task's folder go in.
 */
export async function seedConsoleData(t: TestContext, url: string, token: string, work: string): Promise<ConsoleData> {
  const source = join(work, 'source');
  await mkdir(join(source, 'sub'), { recursive: true });
  await writeFile(join(source, 'a.txt'), 'alpha\n');
  await writeFile(join(source, 'sub', 'b.txt'), 'beta\n');
  const stores = [join(work, 'store-1'), join(work, 'store-2')];
  for (const s of stores) await mkdir(s);
  const restoreInto = join(work, 'restored');
  await mkdir(restoreInto);

  const target = await apiOk(url, 'POST', token, '/api/storage-targets', {
    name: 'Primary disk',
    type: 'local_disk',
    config: { basePath: stores[0] },
  });
  const second = await apiOk(url, 'POST', token, '/api/storage-targets', {
    name: 'Second disk',
    type: 'local_disk',
    config: { basePath: stores[1] },
  });
  const task = await apiOk(url, 'POST', token, '/api/backup/tasks', {
    name: 'Home folder',
    type: 'file',
    sourcePaths: [source],
    storageTargetIds: [target.id],
    tags: ['daily'],
    cronExpr: '0 2 * * *',
  });
  const run = await apiOk(url, 'POST', token, `/api/backup/tasks/${task.id}/run`);
  const recordId = (run.recordId ?? run.id) as number;
  await settled(url, token, `/api/backup/records/${recordId}`);
  const restore = await apiOk(url, 'POST', token, `/api/backup/records/${recordId}/restore`, {
    targetPath: restoreInto,
  });
  await settled(url, token, `/api/restore/records/${restore.id}`);
  const verification = await apiOk(url, 'POST', token, `/api/backup/records/${recordId}/verify`, {});
  await settled(url, token, `/api/verify/records/${verification.id}`);
  const replication = await apiOk(url, 'POST', token, `/api/backup/records/${recordId}/replicate`, {
    destTargetId: second.id,
  });
  await settled(url, token, `/api/replication/records/${replication.id}`);
  const repositoryTask = await apiOk(url, 'POST', token, '/api/backup/tasks', {
    name: 'Project repository',
    type: 'file',
    sourcePaths: [source],
    storageTargetIds: [target.id],
    backupMode: 'repository',
  });
  const repositoryRun = await apiOk(url, 'POST', token, `/api/backup/tasks/${repositoryTask.id}/run`);
  await settled(url, token, `/api/backup/records/${repositoryRun.recordId}`);

  const node = await apiOk(url, 'POST', token, '/api/nodes', { name: 'db-02', labels: 'eu,db' });
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  const channel = await apiOk(url, 'POST', token, '/api/notifications', {
    name: 'Ops webhook',
    type: 'webhook',
    config: { url: receiver.url },
  });
  await apiOk(url, 'POST', token, `/api/notifications/${channel.id}/test`);
  const template = await apiOk(url, 'POST', token, '/api/task-templates', {
    name: 'Nightly files',
    description: 'Files every night',
    payload: { type: 'file', cronExpr: '0 3 * * *', storageTargetIds: [target.id] },
  });
  const user = await apiOk(url, 'POST', token, '/api/users', {
    username: 'olivia',
    password: 'olivia-password-1',
    role: 'operator',
  });
  const key = await apiOk(url, 'POST', token, '/api/api-keys', { name: 'ci-pipeline', role: 'viewer' });
  return {
    targetId: target.id,
    secondTargetId: second.id,
    taskId: task.id,
    recordId,
    repositoryRecordId: repositoryRun.recordId as number,
    restoreId: restore.id,
    verificationId: verification.id,
    replicationId: replication.id,
    nodeId: (node.node ?? node).id,
    channelId: channel.id,
    templateId: template.id,
    userId: user.id,
    apiKeyId: (key.apiKey ?? key).id,
  };
}
