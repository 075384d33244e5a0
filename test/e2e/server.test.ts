import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir, ADMIN } from '../helpers/build.ts';
import { startServerProcess, runCli } from '../helpers/server-process.ts';

async function json(url: string, init: RequestInit & { token?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url, { ...init, headers });
  return { status: res.status, body: (await res.json()) as any };
}

test('the real entry starts on SQLite, serves setup and login, stops on SIGTERM, and keeps its data across a restart', async (t) => {
  const dataDir = await tempDir(t);
  const env = { BACKPLANE_DATA_DIR: dataDir };

  const first = await startServerProcess(env);
  t.after(() => first.stop());
  assert.equal((await json(`${first.url}/api/auth/setup/status`)).body.data.initialized, false);
  const setup = await json(`${first.url}/api/auth/setup`, { method: 'POST', body: JSON.stringify(ADMIN) });
  assert.equal(setup.status, 200);
  const token = setup.body.data.token as string;
  const created = await json(`${first.url}/api/users`, {
    method: 'POST',
    token,
    body: JSON.stringify({ username: 'olivia', password: 'operator-pass-1', role: 'operator' }),
  });
  assert.equal(created.status, 200);
  const settings = await json(`${first.url}/api/settings`, {
    method: 'PUT',
    token,
    body: JSON.stringify({ site_name: 'Vault' }),
  });
  assert.equal(settings.status, 200);
  assert.equal(await first.stop(), 0, 'SIGTERM ends the process cleanly');
  assert.ok(first.logs.some((l) => l.includes('shutting down')));
  // Secrets never reach the log: the bearer token in particular.
  assert.ok(!first.logs.some((l) => l.includes(token)), 'the JWT appears in the log');

  const second = await startServerProcess(env);
  t.after(() => second.stop());
  assert.equal((await json(`${second.url}/api/auth/setup/status`)).body.data.initialized, true);
  // The old token still verifies: the master key persisted in the data dir.
  const users = await json(`${second.url}/api/users`, { token });
  assert.deepEqual(users.body.data.map((u: { username: string }) => u.username).sort(), ['admin', 'olivia']);
  const login = await json(`${second.url}/api/auth/login`, {
    method: 'POST',
    body: JSON.stringify({ username: 'olivia', password: 'operator-pass-1' }),
  });
  assert.equal(login.status, 200);
  assert.equal((await json(`${second.url}/api/settings`, { token })).body.data.site_name, 'Vault');
  assert.equal((await json(`${second.url}/ready`)).status, 200);
  assert.equal(await second.stop(), 0);
});

test('the CLI migrates, resets a password offline, and rejects bad configuration', async (t) => {
  const dataDir = await tempDir(t);
  const env = { BACKPLANE_DATA_DIR: dataDir };
  const migrate = await runCli(['migrate'], env);
  assert.equal(migrate.code, 0, migrate.stderr);
  assert.match(migrate.stdout, /applied: Migration001Initial/);
  assert.match((await runCli(['migrate'], env)).stdout, /up to date/);

  const server = await startServerProcess(env);
  t.after(() => server.stop());
  const setup = await json(`${server.url}/api/auth/setup`, { method: 'POST', body: JSON.stringify(ADMIN) });
  const oldToken = setup.body.data.token as string;
  const reset = await runCli(['reset-password', '--username', 'admin', '--password', 'brand-new-pass'], env);
  assert.equal(reset.code, 0, reset.stderr);
  assert.equal(
    (await json(`${server.url}/api/auth/profile`, { token: oldToken })).status,
    401,
    'the reset revokes existing sessions',
  );
  const login = await json(`${server.url}/api/auth/login`, {
    method: 'POST',
    body: JSON.stringify({ username: 'admin', password: 'brand-new-pass' }),
  });
  assert.equal(login.status, 200);
  assert.equal(await server.stop(), 0);

  const unknown = await runCli(['reset-password', '--username', 'nobody', '--password', 'whatever-123'], env);
  assert.notEqual(unknown.code, 0);
  const badPort = await runCli(['migrate'], { ...env, BACKPLANE_PORT: 'abc' });
  assert.equal(badPort.code, 1);
  assert.match(badPort.stderr, /configuration error: BACKPLANE_PORT/);
});
