import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
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

/** The stock restic on a repository folder, with the password the master's CLI prints, in a 0600 file removed after. */
export async function stockRestic(password: string, repo: string, args: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bp-restic-pw-'));
  const file = join(dir, 'pw');
  await writeFile(file, password, { mode: 0o600 });
  try {
    const { stdout } = await promisify(execFile)(
      'restic',
      ['--no-cache', '-r', repo, '--password-file', file, ...args],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
