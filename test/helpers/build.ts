import type { TestContext } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp, type BuildOptions } from '../../core/app.ts';
import { loadConfig } from '../../core/config/load-config.ts';
import type { Config } from '../../core/config/config.ts';
import { NodeEntity } from '../../core/db/entities/node.ts';
import { generateToken, hashToken } from '../../core/security/tokens.ts';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };

/** Config for tests that play a reverse proxy: `inject` connects from 127.0.0.1, which then may set X-Forwarded-For. */
export const BEHIND_PROXY = { trustedProxies: ['127.0.0.1'] };

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  dataDir: string;
}

/** A temp data dir removed when the test ends. */
export async function tempDir(t: TestContext, prefix = 'backplane-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Builds the real app on a fresh SQLite database in a temp dir; closed when the test ends. */
export async function build(
  t: TestContext,
  options: { config?: Partial<Config>; build?: BuildOptions; dataDir?: string } = {},
): Promise<TestApp> {
  const dataDir = options.dataDir ?? (await tempDir(t));
  const config = loadConfig({
    env: {},
    cwd: dataDir,
    overrides: { dataDir, logLevel: 'silent', tempSweepIntervalSeconds: 0, ...options.config },
  });
  const app = await buildApp(config, { logLevel: process.env.BACKPLANE_TEST_LOG ?? 'silent', ...options.build });
  const apps = openApps.get(t) ?? [];
  openApps.set(t, [...apps, app]);
  t.after(() => app.close());
  return { app, config, dataDir };
}

const openApps = new WeakMap<TestContext, FastifyInstance[]>();

/**
 * Closes the apps a test built (closing again later is harmless). After-hooks run in the order
 * they were added, so a scratch database made before the apps would be dropped under their open
 * sessions; its hook calls this first.
 */
export async function closeAppsOf(t: TestContext): Promise<void> {
  await Promise.all((openApps.get(t) ?? []).map((app) => app.close()));
}

export interface Call {
  token?: string;
  apiKey?: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** `app.inject` with the credentials a test names. */
export async function call(app: FastifyInstance, method: InjectOptions['method'], url: string, c: Call = {}) {
  const headers: Record<string, string> = { ...c.headers };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  if (c.apiKey) headers['x-api-key'] = c.apiKey;
  const res = await app.inject({
    method,
    url,
    headers,
    query: c.query,
    ...(c.body === undefined ? {} : { payload: c.body as InjectOptions['payload'] }),
  });
  let json: any;
  try {
    json = res.json();
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, headers: res.headers, body: res.body };
}

/** Runs first-admin setup and returns the admin's token. */
export async function setupAdmin(app: FastifyInstance): Promise<string> {
  const res = await call(app, 'POST', '/api/auth/setup', { body: ADMIN });
  if (res.status !== 200) throw new Error(`setup failed: ${res.body}`);
  return res.json.data.token as string;
}

/** Creates a user of a role and logs them in; returns id and token. */
export async function userWithRole(
  app: FastifyInstance,
  adminToken: string,
  role: 'admin' | 'operator' | 'viewer',
  username = `${role}-user`,
): Promise<{ id: number; token: string }> {
  const password = `${role}-password-1`;
  const created = await call(app, 'POST', '/api/users', { token: adminToken, body: { username, password, role } });
  if (created.status !== 200) throw new Error(`create user failed: ${created.body}`);
  const login = await call(app, 'POST', '/api/auth/login', { body: { username, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.body}`);
  return { id: created.json.data.id, token: login.json.data.token };
}

export async function apiKeyWithRole(
  app: FastifyInstance,
  adminToken: string,
  role: 'admin' | 'operator' | 'viewer',
  extra: Record<string, unknown> = {},
): Promise<{ id: number; key: string }> {
  const res = await call(app, 'POST', '/api/api-keys', {
    token: adminToken,
    body: { name: `${role}-key`, role, ...extra },
  });
  if (res.status !== 200) throw new Error(`create api key failed: ${res.body}`);
  return { id: res.json.data.apiKey.id, key: res.json.data.plainKey };
}

/** Registers a node row with a fresh agent token (node routes arrive with the agent issue). */
export async function nodeWithToken(app: FastifyInstance, name = 'node-1'): Promise<{ id: number; token: string }> {
  const token = generateToken('node');
  const em = app.diContainer.cradle.orm.em.fork();
  const node = em.create(NodeEntity, { name, tokenHash: hashToken(token) });
  await em.flush();
  return { id: node.id, token };
}
