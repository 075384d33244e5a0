import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask } from '../backup/helpers.ts';
import { startAgent, waitFor } from '../helpers/agent-process.ts';
import { flipByte } from '../helpers/flip-byte.ts';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

async function ended(
  app: import('fastify').FastifyInstance,
  token: string,
  path: string,
  logs: () => string,
): Promise<any> {
  return waitFor(
    `${path} to end`,
    async () => {
      const res = await call(app, 'GET', path, { token });
      return ['success', 'partial', 'failed', 'cancelled'].includes(res.json.data.status) ? res.json.data : undefined;
    },
    60_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${logs()}`);
  });
}

/** A listening master with one enrolled node whose real agent process is online. */
async function masterWithAgent(t: TestContext, name: string) {
  const { app } = await build(t, { config: { nodeOfflineSeconds: 5 } });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const token = await setupAdmin(app);
  const created = await call(app, 'POST', '/api/nodes', { token, body: { name, labels: [] } });
  assert.equal(created.status, 200, created.body);
  const n = { id: created.json.data.node.id as number, token: created.json.data.token as string };
  const agent = await startAgent({ master: url, dir: await tempDir(t, 'backplane-agent-'), token: n.token });
  t.after(() => agent.kill());
  const logs = () => agent.logs.slice(-30).join('\n');
  await waitFor(
    `node ${n.id} online`,
    async () =>
      (await call(app, 'GET', `/api/nodes/${n.id}`, { token })).json.data.status === 'online' ? true : undefined,
    20_000,
  );
  return { app, token, n, logs };
}

test('agent restore, first copy corrupt: the master cuts the transfer, marks the copy; the agent refetches from the healthy one', async (t: TestContext) => {
  const { app, token, n, logs } = await masterWithAgent(t, 'edge-1');

  const src = await tempDir(t);
  const big = randomBytes(1024 * 1024);
  await writeFile(join(src, 'blob.bin'), big);
  const first = await diskTarget(t, app, token, 'first');
  const second = await diskTarget(t, app, token, 'second');
  const task = await createTask(app, token, {
    name: 'node-two-copies',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [first.id, second.id],
    nodeId: n.id,
  });
  const run = await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token });
  assert.equal(run.status, 200, run.body);
  const record = await ended(app, token, `/api/backup/records/${run.json.data.recordId}`, logs);
  assert.equal(record.status, 'success', record.errorMessage);
  await flipByte(join(first.dir, record.storagePath), Math.floor(record.fileSize / 2));

  const into = await tempDir(t);
  const restore = await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token,
    body: { targetPath: into },
  });
  assert.equal(restore.status, 200, restore.body);
  const done = await ended(app, token, `/api/restore/records/${restore.json.data.id}`, logs);
  assert.equal(done.status, 'success', `${done.errorMessage}\n${done.logContent}`);
  assert.equal(done.sourceTargetName, 'second');
  assert.match(done.logContent, /the copy on "first" is corrupt/);
  assert.match(done.logContent, /fetching it again \(attempt 2 of 3\)/);
  const restored = await readdir(into, { recursive: true });
  const blob = restored.find((p) => p.endsWith('blob.bin'));
  assert.ok(blob, `restored: ${restored.join(', ')}`);
  assert.equal(sha256(await readFile(join(into, blob))), sha256(big));
  const copies = (await call(app, 'GET', `/api/backup/records/${record.id}`, { token })).json.data.storageUploadResults;
  assert.deepEqual(
    copies.map((c: { storageTargetName: string; status: string }) => [c.storageTargetName, c.status]),
    [
      ['first', 'corrupt'],
      ['second', 'success'],
    ],
  );
});

test('a restore on an agent whose artifact no target can deliver fails with the coded reason, not an internal error', async (t: TestContext) => {
  const { app, token, n, logs } = await masterWithAgent(t, 'edge-2');

  const src = await tempDir(t);
  await writeFile(join(src, 'a.txt'), 'hello');
  const only = await diskTarget(t, app, token, 'only');
  const task = await createTask(app, token, {
    name: 'node-gone-copy',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [only.id],
    nodeId: n.id,
  });
  const run = await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token });
  const record = await ended(app, token, `/api/backup/records/${run.json.data.recordId}`, logs);
  assert.equal(record.status, 'success', record.errorMessage);
  await rm(join(only.dir, record.storagePath));

  const restore = await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token,
    body: { targetPath: await tempDir(t) },
  });
  assert.equal(restore.status, 200, restore.body);
  const done = await ended(app, token, `/api/restore/records/${restore.json.data.id}`, logs);
  assert.equal(done.status, 'failed');
  assert.doesNotMatch(`${done.errorMessage}\n${done.logContent}`, /INTERNAL_ERROR|internal error/i);
  assert.match(`${done.errorMessage}`, /BACKUP_RECORD_DOWNLOAD_FAILED|could not be read|no copy/i);
});
