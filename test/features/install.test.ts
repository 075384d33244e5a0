import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createServer, request as httpRequest } from 'node:http';
import { build, call, setupAdmin, userWithRole, tempDir } from '../helpers/build.ts';
import { InstallTokenEntity } from '../../core/db/entities/install-token.ts';
import { NodeEntity } from '../../core/db/entities/node.ts';
import { hashToken } from '../../core/security/tokens.ts';
import { redactUrl } from '../../core/http/logging.ts';
import { VERSION } from '../../core/engine/host/installation.ts';

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
  const {
    token,
    installToken: sameToken,
    expiresAt,
    installUrl,
    url,
    fallbackUrl,
    composeUrl,
    fallbackComposeUrl,
    command,
  } = res.json.data;
  assert.match(token, /^bpi_[0-9a-f]{64}$/);
  assert.equal(sameToken, token);
  const ttl = Date.parse(expiresAt) - Date.now();
  assert.ok(ttl > 29 * 60_000 && ttl <= 30 * 60_000, `ttl ${ttl}`);
  assert.equal(url, `http://localhost:80/api/install/${token}`);
  assert.equal(fallbackUrl, `http://localhost:80/install/${token}`);
  assert.equal(installUrl, fallbackUrl);
  assert.equal(composeUrl, `${url}/compose.yml`);
  assert.equal(fallbackComposeUrl, `${fallbackUrl}/compose.yml`);
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
  for (const ttlMinutes of [4, 1441])
    assert.equal((await installToken(app, admin, nodeId, { ttlMinutes })).status, 400);
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
  const [a, b] = await Promise.all([
    app.inject({ url: `/install/${token}` }),
    app.inject({ url: `/api/install/${token}` }),
  ]);
  const statuses = [a.statusCode, b.statusCode].sort();
  assert.deepEqual(statuses, [200, 404]);
  const winner = a.statusCode === 200 ? a : b;
  const loser = a.statusCode === 200 ? b : a;
  assert.equal(winner.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(winner.headers['cache-control'], 'no-store');
  assert.ok(winner.body.startsWith('#!/bin/sh\n# BACKUPX_AGENT_INSTALL_V1'));
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
  await em.nativeUpdate(
    InstallTokenEntity,
    { tokenHash: hashToken(expired) },
    { expiresAt: new Date(Date.now() - 1000) },
  );
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

  const out = await run('sh', [file], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BACKPLANE_INSTALL_ROOT: root, BACKPLANE_INSTALL_NO_START: '1' },
  });
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
  assert.equal(
    (await call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': nodeToken }, body: {} })).status,
    200,
  );

  const reuse = await call(app, 'POST', '/api/install/enroll', { body: { code } });
  assert.equal(reuse.status, 401);
  assert.equal(reuse.json.code, 'INSTALL_ENROLL_INVALID');
  assert.equal(
    (await call(app, 'POST', '/api/install/enroll', { body: { code: 'bpe_' + '0'.repeat(64) } })).status,
    401,
  );

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'node' } });
  assert.ok(audit.json.data.items.some((e: { action: string }) => e.action === 'enroll'));
  assert.ok(!audit.body.includes(agentToken) && !audit.body.includes(code));
});

test('an expired enrollment code is refused and rotates nothing', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const { token } = (await installToken(app, admin, nodeId)).json.data;
  const code = enrollCodeOf((await app.inject({ url: `/install/${token}` })).body);
  const em = app.diContainer.cradle.orm.em.fork();
  await em.nativeUpdate(
    InstallTokenEntity,
    { tokenHash: hashToken(token) },
    { enrollExpiresAt: new Date(Date.now() - 1000) },
  );
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
  assert.equal(preview.headers['content-type'], 'text/x-shellscript; charset=utf-8');
  assert.ok(preview.body.includes("ENROLL_CODE='<ENROLLMENT-CODE>'"));
  const composePreview = await call(app, 'GET', `/api/nodes/${nodeId}/install-script-preview`, {
    token: admin,
    query: { format: 'compose' },
  });
  assert.equal(composePreview.headers['content-type'], 'application/yaml; charset=utf-8');
  assert.ok(composePreview.body.includes('BACKPLANE_AGENT_ENROLL_CODE: "<ENROLLMENT-CODE>"'));
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
    assert.equal(
      (await call(app, 'GET', `/api/nodes/${nodeId}/install-script-preview`, { token })).status,
      403,
      `${role} preview`,
    );
  }
  assert.equal((await call(app, 'POST', `/api/nodes/${nodeId}/install-tokens`)).status, 401);
});

/** Programs the script calls, replaced by stubs that log their arguments (and bring the node online when "started"). */
async function stubs(t: TestContext, names: string[]): Promise<{ bin: string; log: string }> {
  const dir = await tempDir(t);
  const log = join(dir, 'calls.log');
  const startsAgent =
    `curl -fsS -X POST -H "X-Agent-Token: $(cat "$BACKPLANE_INSTALL_ROOT/etc/backplane/agent.token")" ` +
    `-H 'content-type: application/json' --data '{}' "$STUB_MASTER/api/agent/heartbeat" >/dev/null`;
  for (const name of names) {
    const starts = name === 'systemctl' ? '[ "$1" = restart ]' : name === 'docker' ? '[ "$1" = run ]' : 'false';
    await writeFile(
      join(dir, name),
      `#!/bin/sh\necho "${name} $*" >> "$STUB_LOG"\nif ${starts}; then ${startsAgent}; fi\n`,
      { mode: 0o755 },
    );
  }
  return { bin: dir, log };
}

async function listening(app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** Creates an installer over real HTTP, so its URLs point at the listening master. */
async function installerOver(master: string, admin: string, nodeId: number, body: unknown) {
  const res = await fetch(`${master}/api/nodes/${nodeId}/install-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: Record<string, string> };
  assert.equal(res.status, 200, JSON.stringify(json));
  return json.data;
}

async function runScript(t: TestContext, script: string, env: Record<string, string>) {
  const dir = await tempDir(t);
  const file = join(dir, 'install.sh');
  await writeFile(file, script);
  return run('sh', [file], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } }).then(
    (out) => ({ code: 0, ...out }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

test("BackupX's options: mode systemd writes and starts a unit, then waits until the master sees the node online", async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const master = await listening(app);
  const created = await installerOver(master, admin, nodeId, {
    mode: 'systemd',
    arch: 'auto',
    agentVersion: '9.9.9',
    downloadSrc: 'ghproxy',
    ttlSeconds: 600,
  });
  const ttl = Date.parse(created.expiresAt!) - Date.now();
  assert.ok(ttl > 590_000 && ttl <= 600_000, `ttlSeconds honoured (${ttl})`);
  const row = await app.diContainer.cradle.orm.em
    .fork()
    .findOneOrFail(InstallTokenEntity, { tokenHash: hashToken(created.token!) });
  assert.deepEqual([row.mode, row.arch, row.agentVersion, row.downloadSrc], ['systemd', 'auto', '9.9.9', 'ghproxy']);

  const script = await (await fetch(created.url!)).text();
  assert.ok(script.split('\n')[1]!.includes('BACKUPX_AGENT_INSTALL_V1'), 'the marker line');
  assert.ok(
    script.includes("AGENT_VERSION='9.9.9'") &&
      script.includes("DOWNLOAD_BASE='https://ghproxy.com/https://github.com/backplane-dev/backplane'"),
  );
  const root = join(await tempDir(t), 'root');
  const { bin, log } = await stubs(t, ['systemctl']);
  const out = await runScript(t, script, {
    PATH: `${bin}:${process.env.PATH}`,
    BACKPLANE_INSTALL_ROOT: root,
    BACKPLANE_AGENT_BIN: '/opt/bp/backplane',
    STUB_LOG: log,
    STUB_MASTER: master,
  });
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /the node is online/);
  const unit = await readFile(join(root, 'etc/systemd/system/backplane-agent.service'), 'utf8');
  assert.ok(
    unit.includes('ExecStart=/opt/bp/backplane agent\n') && unit.includes('EnvironmentFile=/etc/backplane/agent.env\n'),
    unit,
  );
  assert.deepEqual((await readFile(log, 'utf8')).trim().split('\n'), [
    'systemctl daemon-reload',
    'systemctl enable backplane-agent',
    'systemctl restart backplane-agent',
  ]);
  assert.equal((await call(app, 'GET', `/api/nodes/${nodeId}`, { token: admin })).json.data.status, 'online');
});

test('mode docker runs the versioned image with the settings file; a CA bundle is copied beside the token', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const master = await listening(app);
  const ca = join(await tempDir(t), 'ca.pem');
  await writeFile(ca, '-----BEGIN CERTIFICATE-----\n');
  const created = await installerOver(master, admin, nodeId, { mode: 'docker', caCertFile: ca });
  const root = join(await tempDir(t), 'root');
  const { bin, log } = await stubs(t, ['docker']);
  const out = await runScript(t, await (await fetch(created.fallbackUrl!)).text(), {
    PATH: `${bin}:${process.env.PATH}`,
    BACKPLANE_INSTALL_ROOT: root,
    STUB_LOG: log,
    STUB_MASTER: master,
  });
  assert.equal(out.code, 0, out.stderr);
  const calls = (await readFile(log, 'utf8')).trim().split('\n');
  assert.equal(calls[0], 'docker rm -f backplane-agent');
  assert.equal(
    calls[1],
    `docker run -d --name backplane-agent --restart unless-stopped --user 0:0 --env-file ${root}/etc/backplane/agent.env ` +
      `-v ${root}/etc/backplane:/etc/backplane:ro backplane:${VERSION} agent`,
  );
  assert.equal(await readFile(join(root, 'etc/backplane/ca.pem'), 'utf8'), '-----BEGIN CERTIFICATE-----\n');
  assert.ok(
    (await readFile(join(root, 'etc/backplane/agent.env'), 'utf8')).includes(
      'BACKPLANE_AGENT_CA_CERT_FILE=/etc/backplane/ca.pem\n',
    ),
  );
});

test('mode foreground runs the agent through the proxy the installer names; the script reaches the master through it too', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const master = await listening(app);
  const through: string[] = [];
  const proxy = createServer((req, res) => {
    through.push(`${req.method} ${new URL(req.url!).pathname}`);
    req.pipe(
      httpRequest(req.url!, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      }),
    );
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  );
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const created = await installerOver(master, admin, nodeId, { mode: 'foreground', proxyUrl });
  assert.equal(created.command, `curl -fsSL --proxy '${proxyUrl}' '${created.fallbackUrl}' | sh`);

  const dir = await tempDir(t);
  const root = join(dir, 'root');
  const agentBin = join(dir, 'backplane');
  await writeFile(
    agentBin,
    `#!/bin/sh\necho "$* $BACKPLANE_AGENT_MASTER $BACKPLANE_AGENT_TOKEN_FILE $BACKPLANE_AGENT_PROXY_URL" > "${join(dir, 'ran')}"\n`,
    { mode: 0o755 },
  );
  const out = await runScript(t, await (await fetch(created.url!)).text(), {
    BACKPLANE_INSTALL_ROOT: root,
    BACKPLANE_AGENT_BIN: agentBin,
  });
  assert.equal(out.code, 0, out.stderr);
  assert.deepEqual(through, ['POST /api/install/enroll']);
  const ran = (await readFile(join(dir, 'ran'), 'utf8')).trim();
  assert.equal(ran, `agent ${master} ${root}/etc/backplane/agent.token ${proxyUrl}`);
});

test('an installer made for another architecture stops before it spends its code', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const master = await listening(app);
  const other = (await run('uname', ['-m'])).stdout.trim() === 'aarch64' ? 'amd64' : 'arm64';
  const script = await (await fetch((await installerOver(master, admin, nodeId, { arch: other })).url!)).text();
  const out = await runScript(t, script, {
    BACKPLANE_INSTALL_ROOT: join(await tempDir(t), 'root'),
    BACKPLANE_INSTALL_NO_START: '1',
  });
  assert.equal(out.code, 1);
  assert.match(out.stderr, new RegExp(`this installer is for ${other} machines`));
  const enrolled = await call(app, 'POST', '/api/install/enroll', { body: { code: enrollCodeOf(script) } });
  assert.equal(enrolled.status, 200, 'the code was not spent');
});

test('scriptBase64 enrolls without the install URL, which is then used up; serving the URL first retires the embedded code', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const master = await listening(app);
  const first = await installerOver(master, admin, nodeId, { mode: 'foreground' });
  const embedded = Buffer.from(first.scriptBase64!, 'base64').toString();
  assert.ok(embedded.includes('BACKUPX_AGENT_INSTALL_V1'));
  assert.ok(!/bpn_[0-9a-f]{64}/.test(embedded), 'no node token in the embedded script either');
  const out = await runScript(t, embedded, {
    BACKPLANE_INSTALL_ROOT: join(await tempDir(t), 'root'),
    BACKPLANE_INSTALL_NO_START: '1',
  });
  assert.equal(out.code, 0, out.stderr);
  assert.equal((await app.inject({ url: `/api/install/${first.token}` })).statusCode, 404, 'the installer is used up');

  const second = await installerOver(master, admin, nodeId, {});
  assert.equal((await app.inject({ url: `/install/${second.token}` })).statusCode, 200);
  const late = await runScript(t, Buffer.from(second.scriptBase64!, 'base64').toString(), {
    BACKPLANE_INSTALL_ROOT: join(await tempDir(t), 'root'),
    BACKPLANE_INSTALL_NO_START: '1',
  });
  assert.equal(late.code, 1);
  assert.match(late.stderr, /enrollment failed/);
});

test('installer options are checked: malformed values are INVALID_INPUT, a SOCKS proxy is INSTALL_OPTION_UNSUPPORTED', async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const refused: [Record<string, unknown>, number, string][] = [
    [{ mode: 'launchd' }, 400, 'INVALID_INPUT'],
    [{ arch: 'mips' }, 400, 'INVALID_INPUT'],
    [{ downloadSrc: 'gitee' }, 400, 'INVALID_INPUT'],
    [{ agentVersion: '1.0; rm -rf /' }, 400, 'INVALID_INPUT'],
    [{ agentMasterUrl: 'ftp://backup.example' }, 400, 'INVALID_INPUT'],
    [{ agentMasterUrl: "https://backup.example/'x" }, 400, 'INVALID_INPUT'],
    [{ proxyUrl: 'http://user:pw@proxy.example:3128' }, 400, 'INVALID_INPUT'],
    [{ proxyUrl: 'socks5://proxy.example:1080' }, 400, 'INSTALL_OPTION_UNSUPPORTED'],
    [{ caCertFile: 'certs/ca.pem' }, 400, 'INVALID_INPUT'],
    [{ caCertFile: '/etc/../ca.pem' }, 400, 'INVALID_INPUT'],
    [{ ttlSeconds: 100 }, 400, 'INVALID_INPUT'],
    [{ ttlSeconds: 86_401 }, 400, 'INVALID_INPUT'],
    [{ ttlSeconds: 600, ttlMinutes: 10 }, 400, 'INVALID_INPUT'],
  ];
  for (const [body, status, code] of refused) {
    const res = await installToken(app, admin, nodeId, body);
    assert.equal(res.status, status, JSON.stringify(body));
    assert.equal(res.json.code, code, JSON.stringify(body));
  }
  // BackupX's defaults: '' and 0 mean "the default".
  const defaults = await installToken(app, admin, nodeId, {
    mode: '',
    arch: '',
    agentVersion: '',
    downloadSrc: '',
    ttlSeconds: 0,
  });
  assert.equal(defaults.status, 200, defaults.body);
  const ttl = Date.parse(defaults.json.data.expiresAt) - Date.now();
  assert.ok(ttl > 59 * 60_000 && ttl <= 60 * 60_000);
  const row = await app.diContainer.cradle.orm.em
    .fork()
    .findOneOrFail(InstallTokenEntity, { tokenHash: hashToken(defaults.json.data.token) });
  assert.deepEqual([row.mode, row.arch, row.agentVersion, row.downloadSrc], ['systemd', 'auto', VERSION, 'github']);

  const tagged = await installToken(app, admin, nodeId, { agentVersion: 'v1.2.3' });
  const taggedRow = await app.diContainer.cradle.orm.em
    .fork()
    .findOneOrFail(InstallTokenEntity, { tokenHash: hashToken(tagged.json.data.token) });
  assert.equal(taggedRow.agentVersion, '1.2.3', "BackupX's tag form is the same release");

  const elsewhere = await installToken(app, admin, nodeId, { agentMasterUrl: 'https://agents.example.com/' });
  assert.equal(elsewhere.json.data.url, `https://agents.example.com/api/install/${elsewhere.json.data.token}`);
  const script = (await app.inject({ url: `/install/${elsewhere.json.data.token}` })).body;
  assert.ok(script.includes("MASTER='https://agents.example.com'"), 'the agent and the script use it');
});

test("the preview takes BackupX's query and renders the same script; it is refused with the same checks", async (t) => {
  const { app, admin, nodeId } = await setup(t);
  const preview = await call(app, 'GET', `/api/nodes/${nodeId}/install-script-preview`, {
    token: admin,
    query: {
      mode: 'docker',
      arch: 'arm64',
      agentVersion: '1.2.3',
      downloadSrc: 'github',
      agentMasterUrl: 'https://agents.example.com',
      proxyUrl: 'http://proxy.example:3128',
      caCertFile: '/etc/ssl/ca.pem',
    },
  });
  assert.equal(preview.status, 200, preview.body);
  for (const line of [
    "MODE='docker'",
    "ARCH='arm64'",
    "AGENT_VERSION='1.2.3'",
    "MASTER='https://agents.example.com'",
    "PROXY_URL='http://proxy.example:3128'",
    "CA_CERT_FILE='/etc/ssl/ca.pem'",
    "AGENT_IMAGE='backplane:1.2.3'",
  ]) {
    assert.ok(preview.body.includes(`\n${line}\n`), line);
  }
  const bad = await call(app, 'GET', `/api/nodes/${nodeId}/install-script-preview`, {
    token: admin,
    query: { proxyUrl: 'socks5h://p.example:1080' },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, 'INSTALL_OPTION_UNSUPPORTED');
  assert.equal(
    await app.diContainer.cradle.orm.em.fork().count(InstallTokenEntity, {}),
    0,
    'a preview creates nothing',
  );
});
