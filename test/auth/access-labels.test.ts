import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole, apiKeyWithRole, nodeWithToken } from '../helpers/build.ts';

/**
 * Every route the app registers, checked against its access label: this table grows with the
 * app, so a new route is covered the moment it exists.
 */
test('every route enforces its access label', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const operator = (await userWithRole(app, admin, 'operator')).token;
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const adminKey = (await apiKeyWithRole(app, admin, 'admin')).key;
  const viewerKey = (await apiKeyWithRole(app, admin, 'viewer')).key;
  const agent = (await nodeWithToken(app)).token;

  const routes = app.accessTable;
  assert.ok(routes.length >= 25, `expected the whole API, saw ${routes.length} routes`);
  for (const route of routes) {
    const url = route.url.replace(/:[A-Za-z]+/g, '999999'); // ids that do not exist: these checks must not mutate anything
    const name = `${route.method} ${route.url}`;
    if (route.access === 'public') continue;

    const anonymous = await call(app, route.method as 'GET', url);
    assert.equal(anonymous.status, 401, `${name} without credentials`);
    assert.equal(anonymous.json?.code, 'AUTH_UNAUTHORIZED', `${name} code`);

    if (route.access === 'agent') {
      const withJwt = await call(app, route.method as 'GET', url, { token: admin });
      assert.equal(withJwt.status, 401, `${name} with a user JWT must not open an agent route`);
      const withKey = await call(app, route.method as 'GET', url, { apiKey: adminKey });
      assert.equal(withKey.status, 401, `${name} with an API key must not open an agent route`);
      // The node token opens it in either header (BackupX's agents send it as Bearer).
      for (const [how, headers] of [
        ['X-Agent-Token', { 'x-agent-token': agent }],
        ['Bearer', { authorization: `Bearer ${agent}` }],
      ] as const) {
        const res = await call(app, route.method as 'GET', url, {
          headers: { ...headers, accept: 'application/json' },
        });
        assert.ok(
          res.status !== 401 && res.status !== 403,
          `${name} opens with the node token as ${how} (got ${res.status} ${res.body})`,
        );
      }
      const wrongNode = await call(app, route.method as 'GET', url, {
        headers: { authorization: `Bearer ${agent.slice(0, -4)}xxxx` },
      });
      assert.equal(wrongNode.status, 401, `${name} with an unknown node token as Bearer`);
      continue;
    }

    const asAgent = await call(app, route.method as 'GET', url, { headers: { 'x-agent-token': agent } });
    assert.equal(asAgent.status, 401, `${name} with an agent token`);
    const agentAsBearer = await call(app, route.method as 'GET', url, { token: agent });
    assert.equal(agentAsBearer.status, 401, `${name} with an agent token as Bearer`);

    if (route.access === 'operator' || route.access === 'admin') {
      const low = await call(app, route.method as 'GET', url, { token: viewer });
      assert.equal(low.status, 403, `${name} as viewer`);
      assert.equal(low.json?.code, 'AUTH_FORBIDDEN');
      const lowKey = await call(app, route.method as 'GET', url, { apiKey: viewerKey });
      assert.equal(lowKey.status, 403, `${name} with a viewer API key`);
    }
    if (route.access === 'admin') {
      const op = await call(app, route.method as 'GET', url, { token: operator });
      assert.equal(op.status, 403, `${name} as operator`);
    }
    if (route.interactiveOnly) {
      const key = await call(app, route.method as 'GET', url, { apiKey: adminKey });
      assert.equal(key.status, 403, `${name} refuses API keys`);
      assert.equal(key.json?.code, 'AUTH_INTERACTIVE_ONLY');
    } else {
      // Asking for JSON makes event-stream routes answer 406 instead of opening a stream that never ends.
      const key = await call(app, route.method as 'GET', url, {
        apiKey: adminKey,
        headers: { accept: 'application/json' },
      });
      assert.ok(key.status !== 401 && key.status !== 403, `${name} accepts an admin API key (got ${key.status})`);
    }
  }
});

test('a route without an access label stops the app from booting', async (t) => {
  const { app } = await build(t);
  const { default: Fastify } = await import('fastify');
  const { accessGuard } = await import('../../core/auth/guard.ts');
  const { requestScope } = await import('../../core/http/request-scope.ts');
  const { fastifyAwilixPlugin } = await import('@fastify/awilix');
  const bare = Fastify();
  t.after(() => bare.close());
  await bare.register(fastifyAwilixPlugin, { container: app.diContainer.createScope() as never });
  await bare.register(requestScope);
  await bare.register(accessGuard);
  assert.throws(() => bare.get('/unlabelled', async () => 'x'), /has no access label/);
});
