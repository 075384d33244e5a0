import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { build, call, setupAdmin, userWithRole, tempDir } from '../helpers/build.ts';
import { InstallTokenEntity } from '../../core/db/entities/install-token.ts';
import { NodeEntity } from '../../core/db/entities/node.ts';
import { hashToken } from '../../core/security/tokens.ts';
import { redactUrl } from '../../core/http/logging.ts';

const run = promisify(execFile);

async function setup(t: TestContext) {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const created = await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'web-1' } });
  assert.equal(created.status, 200, created.body);
  return { app, admin, nodeId: created.json.data.node.id as number, nodeToken: created.json.data.token as string };
}

type App = Awaited<ReturnType<typeof setup>>['app'];
const installToken = (app: App, admin: string, nodeId: number, body?: unknown) =>
  call(app, 'POST', `/api/nodes/${nodeId}/install-tokens`, { token: admin, body });

/** The enrollment code embedded in a rendered script or compose file. */
function enrollCodeOf(text: string): string {
  const m = /bpe_[0-9a-f]{64}/.exec(text);
  assert.ok(m, 'an enrollment code is embedded');
  return m[0];
}

test('an install token is shown once, stored hashed, time-limited and audited without the token', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const res = await installToken(app, admin, nodeId, { ttlMinutes: 30 });
  assert.equal(res.status, 200, res.body);
  const { token, expiresAt, installUrl, composeUrl, command } = res.json.data;
  assert.match(token, /^bpi_[0-9a-f]{64}$/);
  const ttl = Date.parse(expiresAt) - Date.now();
  assert.ok(ttl > 29 * 60_000 && ttl <= 30 * 60_000, `ttl ${ttl}`);
  assert.equal(installUrl, `http://localhost:80/install/${token}`);
  assert.equal(composeUrl, `${installUrl}/compose.yml`);
  assert.equal(command, `curl -fsSL '${installUrl}' | sh`);

  const rows = await app.diContainer.cradle.orm.em.fork().find(InstallTokenEntity, { nodeId });
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.tokenHash, hashToken(token));
  assert.ok(!JSON.stringify(rows).includes(token), 'the plain token is never stored');
  assert.equal(rows[0]!.consumedAt, null);
  assert.equal(rows[0]!.createdBy, 'admin');

  const noBody = await installToken(app, admin, nodeId);
  assert.equal(noBody.status, 200, noBody.body);
  const defTtl = Date.parse(noBody.json.data.expiresAt) - Date.now();
  assert.ok(defTtl > 59 * 60_000 && defTtl <= 60 * 60_000, 'default 60 minutes');
  for (const ttlMinutes of [4, 1441]) assert.equal((await installToken(app, admin, nodeId, { ttlMinutes })).status, 400);
  const missing = await installToken(app, admin, 999);
  assert.equal(missing.status, 404);
  assert.equal(missing.json.code, 'NODE_NOT_FOUND');

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'node' } });
  assert.ok(audit.json.data.items.some((e: { action: string }) => e.action === 'install_token'));
  assert.ok(!audit.body.includes(token) && !audit.body.includes(hashToken(token)), 'never audited');

  assert.equal(redactUrl(`/install/${token}`), '/install/[REDACTED]');
  assert.equal(redactUrl(`/api/install/${token}/compose.yml`), '/api/install/[REDACTED]/compose.yml');
});

test('external URL, when configured, builds the install URLs', async (t) => {
  const { app } = await build(t, { config: { externalUrl: 'https://backup.example.com' } });
  const admin = await setupAdmin(app);
  const nodeId = (await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'n' } })).json.data.node.id;
  const res = await installToken(app, admin, nodeId);
  assert.equal(res.json.data.installUrl, `https://backup.example.com/install/${res.json.data.token}`);
});

test('a token is consumed once, even by two concurrent requests; unknown, used and expired are one 404', async (t) => {
  const { app, admin, nodeId, nodeToken } = await setup(t);
  const { token } = (await installToken(app, admin, nodeId)).json.data;
  const [a, b] = await Promise.all([app.inject({ url: `/install/${token}` }), app.inject({ url: `/api/install/${token}` })]);
  const statuses = [a.statusCode, b.statusCode].sort();
  assert.deepEqual(statuses, [200, 404]);
  const winner = a.statusCode === 200 ? a : b;
  const loser = a.statusCode === 200 ? b : a;
  assert.equal(winner.headers['content-type'], 'text/x-shellscript; charset=utf-8');
  assert.ok(winner.body.startsWith('#!/bin/sh\n'));
  assert.ok(!winner.body.includes(nodeToken) && !/bpn_[0-9a-f]{64}/.test(winner.body), 'no node token in the script');
  assert.ok(!winner.body.includes(token), 'the install token is not echoed');
  assert.equal(loser.json().code, 'INSTALL_TOKEN_INVALID');

  const again = await app.inject({ url: `/install/${token}` });
  assert.equal(again.statusCode, 404);
  assert.equal(again.json().code, 'INSTALL_TOKEN_INVALID');
  for (const bogus of ['bpi_' + '0'.repeat(64), 'nonsense']) {
    const r = await app.inject({ url: `/install/${bogus}` });
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().code, 'INSTALL_TOKEN_INVALID');
  }

  const expired = (await installToken(app, admin, nodeId)).json.data.token;
  const em = app.diContainer.cradle.orm.em.fork();
  await em.nativeUpdate(InstallTokenEntity, { tokenHash: hashToken(expired) }, { expiresAt: new Date(Date.now() - 1000) });
  const late = await app.inject({ url: `/install/${expired}` });
  assert.equal(late.statusCode, 404);
  assert.equal(late.json().code, 'INSTALL_TOKEN_INVALID');
});

test('the script passes sh -n and, run for real, enrolls the node; the enrollment code is single use', async (t) => {
  const { app, admin, nodeId, nodeToken } = await setup(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const master = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const dir = await tempDir(t);
  const root = join(dir, 'root');

  const { token } = (await installToken(app, admin, nodeId)).json.data;
  const res = await fetch(`${master}/install/${token}`);
  assert.equal(res.status, 200);
  const script = await res.text();
  assert.ok(script.includes(`MASTER='${master}'`));
  const code = enrollCodeOf(script);
  const file = join(dir, 'install.sh');
  await writeFile(file, script);
  await run('sh', ['-n', file]);

  const out = await run('sh', [file], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BACKPLANE_INSTALL_ROOT: root, BACKPLANE_INSTALL_NO_START: '1' } });
  assert.ok(!out.stdout.includes('bpn_') && !out.stderr.includes('bpn_'), 'the token is not printed');
  const tokenFile = join(root, 'etc/backplane/agent.token');
  assert.equal((await stat(tokenFile)).mode & 0o777, 0o600);
  const agentToken = (await readFile(tokenFile, 'utf8')).trim();
  assert.match(agentToken, /^bpn_[0-9a-f]{64}$/);
  assert.notEqual(agentToken, nodeToken, 'a freshly issued token');
  assert.ok(!script.includes(agentToken), 'the script never contained the token');
  const env = await readFile(join(root, 'etc/backplane/agent.env'), 'utf8');
  assert.ok(env.includes(`BACKPLANE_AGENT_MASTER=${master}\n`));
  assert.ok(env.includes('BACKPLANE_AGENT_TOKEN_FILE=/etc/backplane/agent.token\n'));

  const hb = await call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': agentToken }, body: {} });
  assert.equal(hb.status, 200, hb.body);
  assert.equal(hb.json.data.nodeId, nodeId);
  // Enrollment is a rotation: the previous token keeps its grace period.
  assert.equal((await call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': nodeToken }, body: {} })).status, 200);

  const reuse = await call(app, 'POST', '/api/install/enroll', { body: { code } });
  assert.equal(reuse.status, 401);
  assert.equal(reuse.json.code, 'INSTALL_ENROLL_INVALID');
  assert.equal((await call(app, 'POST', '/api/install/enroll', { body: { code: 'bpe_' + '0'.repeat(64) } })).status, 401);

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'node' } });
  assert.ok(audit.json.data.items.some((e: { action: string }) => e.action === 'enroll'));
  assert.ok(!audit.body.includes(agentToken) && !audit.body.includes(code));
});

test('an expired enrollment code is refused and rotates nothing', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const { token } = (await installToken(app, admin, nodeId)).json.data;
  const code = enrollCodeOf((await app.inject({ url: `/install/${token}` })).body);
  const em = app.diContainer.cradle.orm.em.fork();
  await em.nativeUpdate(InstallTokenEntity, { tokenHash: hashToken(token) }, { enrollExpiresAt: new Date(Date.now() - 1000) });
  const res = await call(app, 'POST', '/api/install/enroll', { body: { code } });
  assert.equal(res.status, 401);
  assert.equal(res.json.code, 'INSTALL_ENROLL_INVALID');
  const node = await em.findOneOrFail(NodeEntity, { id: nodeId });
  assert.equal(node.previousTokenHash, null, 'no rotation happened');
});

test('at most 5 open install tokens per node', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const tokens: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await installToken(app, admin, nodeId);
    assert.equal(r.status, 200, r.body);
    tokens.push(r.json.data.token);
  }
  const sixth = await installToken(app, admin, nodeId);
  assert.equal(sixth.status, 429);
  assert.equal(sixth.json.code, 'INSTALL_TOKEN_RATE_LIMITED');
  // Using one frees a slot.
  assert.equal((await app.inject({ url: `/install/${tokens[0]}` })).statusCode, 200);
  assert.equal((await installToken(app, admin, nodeId)).status, 200);
});

test('preview shows the placeholder and consumes nothing; compose.yml consumes the token', async (t) => {
  const { app, admin, nodeId, nodeToken } = await setup(t);
  const { token } = (await installToken(app, admin, nodeId)).json.data;
  const preview = await call(app, 'GET', `/api/nodes/${nodeId}/install-script-preview`, { token: admin });
  assert.equal(preview.status, 200, preview.body);
  assert.ok(preview.json.data.script.includes("ENROLL_CODE='<ENROLLMENT-CODE>'"));
  assert.ok(preview.json.data.compose.includes('<ENROLLMENT-CODE>'));
  assert.equal((await call(app, 'GET', '/api/nodes/999/install-script-preview', { token: admin })).status, 404);

  const compose = await app.inject({ url: `/install/${token}/compose.yml` });
  assert.equal(compose.statusCode, 200, compose.body);
  assert.equal(compose.headers['content-type'], 'application/yaml; charset=utf-8');
  assert.ok(compose.body.includes('BACKPLANE_AGENT_MASTER:'));
  assert.ok(compose.body.includes(`BACKPLANE_AGENT_ENROLL_CODE: "${enrollCodeOf(compose.body)}"`));
  assert.ok(!compose.body.includes('bpn_') && !compose.body.includes(nodeToken));
  assert.equal((await app.inject({ url: `/api/install/${token}/compose.yml` })).statusCode, 404, 'consumed');
  assert.equal((await app.inject({ url: `/install/${token}` })).statusCode, 404, 'consumed for the script too');
});

test('viewers and operators cannot create installers or see the preview', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  for (const role of ['viewer', 'operator'] as const) {
    const { token } = await userWithRole(app, admin, role);
    assert.equal((await installToken(app, token, nodeId)).status, 403, `${role} create`);
    assert.equal((await call(app, 'GET', `/api/nodes/${nodeId}/install-script-preview`, { token })).status, 403, `${role} preview`);
  }
  assert.equal((await call(app, 'POST', `/api/nodes/${nodeId}/install-tokens`)).status, 401);
});
