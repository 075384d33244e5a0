import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from './build.ts';
import { startAgent, waitFor, type AgentProcess } from './agent-process.ts';

/** A master listening on 127.0.0.1 for real agents, with its first admin's token. */
export interface Master {
  app: FastifyInstance;
  url: string;
  token: string;
}

export async function master(t: TestContext, config: Record<string, unknown> = {}): Promise<Master> {
  const { app } = await build(t, { config: { nodeOfflineSeconds: 5, ...config } });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url, token: await setupAdmin(app) };
}

/** Waits for the record (backup, restore…) at `path` to end; on a timeout the agent's last log lines say why. */
export async function finished(m: Master, path: string, agent?: AgentProcess): Promise<any> {
  return waitFor(
    `${path} to end`,
    async () => {
      const res = await call(m.app, 'GET', path, { token: m.token });
      return ['success', 'partial', 'failed', 'cancelled'].includes(res.json.data.status) ? res.json.data : undefined;
    },
    60_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${agent?.logs.slice(-30).join('\n') ?? ''}`);
  });
}

/** Runs a task now and waits for its record to end. */
export async function runToEnd(m: Master, taskId: number, agent?: AgentProcess): Promise<any> {
  const res = await call(m.app, 'POST', `/api/backup/tasks/${taskId}/run`, { token: m.token });
  assert.equal(res.status, 200, res.body);
  return finished(m, `/api/backup/records/${res.json.data.recordId}`, agent);
}

/** A node created through the API: its id and its token. */
export async function node(m: Master, name: string, labels: string[] = []): Promise<{ id: number; token: string }> {
  const res = await call(m.app, 'POST', '/api/nodes', { token: m.token, body: { name, labels } });
  assert.equal(res.status, 200, res.body);
  return { id: res.json.data.node.id, token: res.json.data.token };
}

/** A real agent for node `n`, stopped after the test, once the master sees the node online; in `dir` when given. */
export async function agentFor(
  t: TestContext,
  m: Master,
  n: { id: number; token?: string },
  options: { env?: Record<string, string>; tokenFile?: string; args?: string[]; dir?: string } = {},
): Promise<AgentProcess> {
  const { dir = await tempDir(t, 'backplane-agent-'), ...rest } = options;
  const agent = await startAgent({ master: m.url, dir, ...(n.token ? { token: n.token } : {}), ...rest });
  t.after(() => agent.kill());
  await waitFor(
    `node ${n.id} online`,
    async () => {
      const res = await call(m.app, 'GET', `/api/nodes/${n.id}`, { token: m.token });
      return res.json.data.status === 'online' ? true : undefined;
    },
    20_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${agent.logs.join('\n')}`);
  });
  return agent;
}
