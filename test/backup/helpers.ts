import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { call, tempDir } from '../helpers/build.ts';

/** A local_disk target in a fresh temp dir. */
export async function diskTarget(
  t: TestContext,
  app: FastifyInstance,
  token: string,
  name = 'disk',
): Promise<{ id: number; dir: string }> {
  const dir = await tempDir(t);
  const res = await call(app, 'POST', '/api/storage-targets', {
    token,
    body: { name, type: 'local_disk', config: { basePath: dir } },
  });
  assert.equal(res.status, 200, res.body);
  return { id: res.json.data.id, dir };
}

export async function createTask(
  app: FastifyInstance,
  token: string,
  body: Record<string, unknown>,
): Promise<{ id: number; name: string }> {
  const res = await call(app, 'POST', '/api/backup/tasks', { token, body });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

/** Starts a manual run and waits until the master has nothing queued or running. */
export async function runAndWait(app: FastifyInstance, token: string, taskId: number): Promise<any> {
  const res = await call(app, 'POST', `/api/backup/tasks/${taskId}/run`, { token });
  assert.equal(res.status, 200, res.body);
  await app.diContainer.cradle.backupRuns.idle();
  const record = await call(app, 'GET', `/api/backup/records/${res.json.data.recordId}`, { token });
  assert.equal(record.status, 200, record.body);
  return record.json.data;
}
