import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, ADMIN } from '../helpers/build.ts';

type Reply = Awaited<ReturnType<typeof call>>;

function assertNoStore(res: Reply, what: string): void {
  assert.equal(res.headers['cache-control'], 'no-store', `${what}: Cache-Control: no-store (status ${res.status})`);
}

test('X-Content-Type-Options: nosniff on every kind of response: JSON, errors, 404s, text, CSV, bad JSON', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const replies: [string, Reply][] = [
    ['a JSON success', await call(app, 'GET', '/api/auth/setup/status')],
    ['an authenticated JSON success', await call(app, 'GET', '/api/users', { token: admin })],
    ['a 401', await call(app, 'GET', '/api/users')],
    ['a 403 (viewer on admin route is covered by 401 here: no token)', await call(app, 'GET', '/api/settings')],
    ['a 404 of an unknown route', await call(app, 'GET', '/no/such/route')],
    ['a 404 of an unknown record', await call(app, 'GET', '/api/users/999999', { token: admin })],
    ['a validation 400', await call(app, 'POST', '/api/users', { token: admin, body: { username: 1 } })],
    ['a 400 invalid id', await call(app, 'PUT', '/api/users/abc', { token: admin, body: {} })],
    ['the metrics text', await call(app, 'GET', '/metrics')],
    ['the liveness probe', await call(app, 'GET', '/health')],
    ['a CSV export', await call(app, 'GET', '/api/audit-logs/export', { token: admin })],
  ];
  const invalidJson = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'content-type': 'application/json' },
    payload: '{"username":',
  });
  replies.push([
    'an unparsable JSON body',
    { status: invalidJson.statusCode, headers: invalidJson.headers, json: undefined, body: invalidJson.body },
  ]);
  const badType = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'content-type': 'application/xml' },
    payload: '<x/>',
  });
  replies.push([
    'an unsupported media type',
    { status: badType.statusCode, headers: badType.headers, json: undefined, body: badType.body },
  ]);
  for (const [what, res] of replies) {
    assert.equal(res.headers['x-content-type-options'], 'nosniff', `${what} (status ${res.status})`);
  }
  // The cases above really are what they say (a test that cannot fail is no test).
  assert.deepEqual(
    replies.map(([, r]) => r.status),
    [200, 200, 401, 401, 404, 404, 400, 400, 200, 200, 200, 400, 415],
  );
});

test('Cache-Control: no-store on every response that carries a secret', async (t) => {
  const { app } = await build(t);
  const setup = await call(app, 'POST', '/api/auth/setup', { body: ADMIN });
  assert.equal(setup.status, 200);
  assertNoStore(setup, 'setup (session token)');
  const admin: string = setup.json.data.token;

  const login = await call(app, 'POST', '/api/auth/login', { body: ADMIN });
  assert.equal(login.status, 200);
  assertNoStore(login, 'login (session token)');
  assertNoStore(
    await call(app, 'POST', '/api/auth/login', { body: { ...ADMIN, password: 'wrong-password' } }),
    'a failed login',
  );

  const key = await call(app, 'POST', '/api/api-keys', { token: admin, body: { name: 'k', role: 'viewer' } });
  assert.equal(key.status, 200);
  assertNoStore(key, 'API key creation (plain key)');

  const node = await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'n1' } });
  assert.equal(node.status, 200, node.body);
  assertNoStore(node, 'node creation (agent token)');
  const nodeId: number = node.json.data.node.id;
  const batch = await call(app, 'POST', '/api/nodes/batch', { token: admin, body: { names: ['n2', 'n3'] } });
  assert.equal(batch.status, 200, batch.body);
  assertNoStore(batch, 'node batch creation (agent tokens)');
  const rotated = await call(app, 'POST', `/api/nodes/${nodeId}/rotate-token`, { token: admin });
  assert.equal(rotated.status, 200, rotated.body);
  assertNoStore(rotated, 'token rotation');
  const agentSelf = await call(app, 'GET', '/api/v1/agent/self', {
    headers: { 'x-agent-token': rotated.json.data.token },
  });
  assert.equal(agentSelf.status, 200, agentSelf.body);
  assertNoStore(agentSelf, 'an agent route');

  const install = await call(app, 'POST', `/api/nodes/${nodeId}/install-tokens`, { token: admin });
  assert.equal(install.status, 200, install.body);
  assertNoStore(install, 'install token creation');
  const script = await call(app, 'GET', `/install/${install.json.data.token}`);
  assert.equal(script.status, 200);
  assertNoStore(script, 'the install script (enrollment code)');
  const code = /bpe_[0-9a-f]{64}/.exec(script.body)?.[0];
  assert.ok(code);
  const enrolled = await call(app, 'POST', '/api/install/enroll', { body: { code } });
  assert.equal(enrolled.status, 200, enrolled.body);
  assertNoStore(enrolled, 'enrollment (agent token)');
  const compose = await call(
    app,
    'GET',
    `/install/${(await call(app, 'POST', `/api/nodes/${nodeId}/install-tokens`, { token: admin })).json.data.token}/compose.yml`,
  );
  assert.equal(compose.status, 200);
  assertNoStore(compose, 'the compose file (enrollment code)');

  const password = await call(app, 'PUT', '/api/auth/password', {
    token: admin,
    body: { oldPassword: ADMIN.password, newPassword: 'another-password-2' },
  });
  assert.equal(password.status, 200, password.body);
  assertNoStore(password, 'password change (fresh session token)');

  // Responses without secrets stay cacheable by the client's choice: the header is not blanket.
  assert.equal((await call(app, 'GET', '/api/auth/setup/status')).headers['cache-control'], undefined);
});
