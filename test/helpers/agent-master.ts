import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin } from './build.ts';
import { waitFor, type AgentProcess } from './agent-process.ts';

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
