import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask } from '../backup/helpers.ts';
import { startAgent, waitFor, type AgentProcess } from '../helpers/agent-process.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { stalledDatabase, type StalledDatabase } from '../helpers/stalled-postgres.ts';
import { filesUnder } from '../engine/helpers.ts';
import { AgentCommandEntity } from '../../core/db/entities/agent-command.ts';

/** Cancel and time limits reach a run on a real agent process: its pg_dump is killed, nothing is stored. */

async function recordOf(app: FastifyInstance, token: string, id: number): Promise<any> {
  return (await call(app, 'GET', `/api/backup/records/${id}`, { token })).json.data;
}

async function stalledRun(
  app: FastifyInstance,
  token: string,
  taskId: number,
  db: StalledDatabase,
  agent: AgentProcess,
): Promise<number> {
  const res = await call(app, 'POST', `/api/backup/tasks/${taskId}/run`, { token });
  assert.equal(res.status, 200, res.body);
  const id = res.json.data.recordId as number;
  await waitFor('the agent to start the dump and stall', async () =>
    (await db.dumpPids()).length > 0 && (await recordOf(app, token, id)).status === 'running' ? true : undefined,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${agent.logs.slice(-20).join('\n')}`);
  });
  return id;
}

/** The agent lets go: its pg_dump is gone and it reported the command's end. */
async function agentLetGo(app: FastifyInstance, db: StalledDatabase, id: number, agent: AgentProcess): Promise<void> {
  await waitFor(
    'the agent to kill pg_dump and report',
    async () => {
      const commands = await app.diContainer.cradle.orm.em
        .fork()
        .find(AgentCommandEntity, { recordKind: 'backup', recordId: id });
      return (await db.dumpPids()).length === 0 && commands.every((c) => c.status === 'failed') ? true : undefined;
    },
    20_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${agent.logs.slice(-20).join('\n')}`);
  });
}

async function setup(t: TestContext) {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return undefined;
  const db = await stalledDatabase(t, url);
  // A limit "minute" of 300 ms, checked every 50 ms: the real limit logic with a short unit.
  const { app } = await build(t, { config: { nodeOfflineSeconds: 5, runLimitMinuteMs: 300, runLimitCheckMs: 50 } });
  const masterUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const token = await setupAdmin(app);
  const created = await call(app, 'POST', '/api/nodes', { token, body: { name: 'edge-cancel' } });
  assert.equal(created.status, 200, created.body);
  const node = { id: created.json.data.node.id as number, token: created.json.data.token as string };
  const agent = await startAgent({ master: masterUrl, dir: await tempDir(t, 'backplane-agent-'), token: node.token });
  t.after(() => agent.kill());
  await waitFor(
    'the node to come online',
    async () =>
      (await call(app, 'GET', `/api/nodes/${node.id}`, { token })).json.data.status === 'online' ? true : undefined,
    20_000,
  );
  const target = await diskTarget(t, app, token);
  return { app, token, db, agent, node, target };
}

test('cancelling a backup running on an agent: the agent kills its pg_dump, the record ends cancelled, nothing is stored', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const { app, token, db, agent, node, target } = s;
  const task = await createTask(app, token, {
    name: 'Remote stalled',
    type: 'postgresql',
    dbHost: db.host,
    dbPort: db.port,
    dbUser: db.user,
    dbName: db.name,
    storageTargetIds: [target.id],
    nodeId: node.id,
  });
  const id = await stalledRun(app, token, task.id, db, agent);

  const res = await call(app, 'POST', `/api/backup/records/${id}/cancel`, { token });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.data.status, 'cancelled');
  await agentLetGo(app, db, id, agent);
  const record = await recordOf(app, token, id);
  assert.equal(record.status, 'cancelled');
  assert.match(record.errorMessage, /cancelled by admin/);
  assert.ok(record.storageUploadResults.every((c: any) => c.status !== 'success'));
  assert.deepEqual(await filesUnder(target.dir), []);
  assert.equal(
    (await call(app, 'POST', `/api/backup/records/${id}/cancel`, { token })).json.code,
    'BACKUP_RECORD_NOT_ACTIVE',
  );

  // The agent is free for the next run.
  const next = await stalledRun(app, token, task.id, db, agent);
  assert.equal(
    (await call(app, 'POST', `/api/backup/records/${next}/cancel`, { token })).json.data.status,
    'cancelled',
  );
  await agentLetGo(app, db, next, agent);
});

test('a backup on an agent past its time limit is stopped there: failed with the reason, pg_dump killed, nothing stored', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const { app, token, db, agent, node, target } = s;
  const task = await createTask(app, token, {
    name: 'Remote limited',
    type: 'postgresql',
    dbHost: db.host,
    dbPort: db.port,
    dbUser: db.user,
    dbName: db.name,
    storageTargetIds: [target.id],
    nodeId: node.id,
    timeoutMinutes: 3,
  });
  const res = await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token });
  assert.equal(res.status, 200, res.body);
  const id = res.json.data.recordId as number;
  const record = await waitFor('the time limit to end the run', async () => {
    const r = await recordOf(app, token, id);
    return r.status === 'running' || r.status === 'queued' ? undefined : r;
  });
  assert.equal(record.status, 'failed');
  assert.match(record.errorMessage, /time limit of 3 minutes reached/);
  await agentLetGo(app, db, id, agent);
  assert.deepEqual(await filesUnder(target.dir), []);
});
