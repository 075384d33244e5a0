import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { build, setupAdmin } from '../helpers/build.ts';
import { SPEC_FILE, parseSpec, readSnapshot, type SpecRoutes } from '../../scripts/spec-routes.ts';

/**
 * The spec's route list: parsed from ../shared/spec.md when the spec is beside the repository
 * (and then the committed copy must match it), else the committed copy (test/http/spec-routes.json,
 * written by scripts/spec-routes.ts), so a checkout on its own walks the same list.
 */
function specRouteList(): SpecRoutes {
  const snapshot = readSnapshot();
  if (existsSync(SPEC_FILE)) {
    assert.deepEqual(
      snapshot,
      parseSpec(readFileSync(SPEC_FILE, 'utf8')),
      'test/http/spec-routes.json is stale: run node_modules/.bin/node scripts/spec-routes.ts',
    );
  }
  return snapshot;
}

/** `/api/x/:id` written as OpenAPI writes it, as a pattern; placeholder segments match any segment. */
function pathPattern(path: string, placeholders: Set<string>): RegExp {
  const parts = path.split('/').map((seg) => {
    if (seg.startsWith(':')) return `\\{${seg.slice(1)}\\}`;
    if (placeholders.has(seg)) return '[^/{}]+';
    return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${parts.join('/')}$`);
}

type Operation = {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  security?: unknown[];
};

test('GET /api/openapi.json describes every spec route with its success and error responses', async (t) => {
  const { app } = await build(t);
  const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const doc = res.json() as {
    openapi: string;
    info: { title: string; version: string };
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  };
  assert.match(doc.openapi, /^3\.1\./);
  assert.equal(doc.info.title, 'Backplane');
  assert.ok(doc.info.version.length > 0);
  assert.ok(doc.components.schemas.ErrorEnvelope, 'the shared error envelope is a named component');
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
    'agentBearer',
    'agentToken',
    'apiKey',
    'bearerAuth',
  ]);

  const paths = Object.keys(doc.paths);
  assert.ok(paths.length > 50, `the description has ${paths.length} paths`);
  assert.deepEqual(
    paths.filter((p) => p.includes(':')),
    [],
    'path parameters are written {id}, not :id',
  );
  assert.ok(doc.paths['/api/backup/records/{id}']?.get, '/api/backup/records/:id appears as /api/backup/records/{id}');
  assert.deepEqual(
    paths.filter((p) => p.startsWith('/api/docs') || p === '/api/openapi.json'),
    [],
    "the docs' own routes are hidden",
  );

  const list = specRouteList();
  const routes = list.routes;
  assert.ok(routes.length > 100, `read ${routes.length} routes from spec.md`);
  const placeholders = new Set(list.placeholders);
  const problems: string[] = [];
  for (const route of routes) {
    const pattern = pathPattern(route.path, placeholders);
    const matches = paths.filter((p) => pattern.test(p) && doc.paths[p]![route.method.toLowerCase()]);
    const name = `${route.method} ${route.path}`;
    if (matches.length === 0) {
      problems.push(`${name}: not in the description`);
      continue;
    }
    for (const path of matches) {
      const op = doc.paths[path]![route.method.toLowerCase()]!;
      const responses = Object.entries(op.responses ?? {});
      const success = responses.filter(([status]) => /^2/.test(status));
      if (!success.some(([, r]) => r.content && Object.values(r.content).some((m) => m.schema)))
        problems.push(`${name}: no 2xx response schema with content`);
      const clientError = responses.find(([status]) => status === '4XX')?.[1];
      const ref = clientError?.content?.['application/json']?.schema as { $ref?: string } | undefined;
      if (ref?.$ref !== '#/components/schemas/ErrorEnvelope') problems.push(`${name}: 4xx is not the ErrorEnvelope`);
    }
  }
  assert.deepEqual(problems, [], problems.join('\n'));

  // Security follows the access label: none for public routes, the bearer token or an API key for users.
  assert.deepEqual(doc.paths['/api/auth/login']!.post!.security, []);
  assert.deepEqual(doc.paths['/api/users']!.get!.security, [{ bearerAuth: [] }, { apiKey: [] }]);
  assert.deepEqual(doc.paths['/api/agent/heartbeat']!.post!.security, [{ agentToken: [] }, { agentBearer: [] }]);
});

test('the error envelope in the description is the one errors are sent in', async (t) => {
  const { app } = await build(t);
  const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  const envelope = doc.components.schemas.ErrorEnvelope;
  assert.deepEqual(Object.keys(envelope.properties).sort(), ['code', 'details', 'message']);
  assert.deepEqual(envelope.required.sort(), ['code', 'message']);
  // A validation error keeps its details through the shared schema.
  const res = await app.inject({ method: 'POST', url: '/api/auth/setup', payload: { username: 'x' } });
  assert.equal(res.statusCode, 400);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'message']);
  assert.equal(body.code, 'INVALID_INPUT');
  assert.ok(Array.isArray(body.details) && body.details.length > 0 && typeof body.details[0].path === 'string');
  const unauthenticated = await app.inject({ method: 'GET', url: '/api/users' });
  assert.deepEqual(unauthenticated.json(), { code: 'AUTH_UNAUTHORIZED', message: 'Authentication is required.' });
  // Event streams refuse an Accept that refuses them with the envelope, before the SSE plugin's
  // own 406 (another shape, which the shared schema cannot serialise) is reached.
  const token = await setupAdmin(app);
  for (const accept of ['application/json', 'text/event-stream;q=0', 'text/event-stream;q=0, */*']) {
    const stream = await app.inject({
      method: 'GET',
      url: '/api/events/stream',
      headers: { accept, authorization: `Bearer ${token}` },
    });
    assert.equal(stream.statusCode, 406, accept);
    assert.equal(stream.json().code, 'NOT_ACCEPTABLE', accept);
  }
});

test('GET /api/docs is an HTML page whose assets this server serves', async (t) => {
  const { app } = await build(t);
  const page = await app.inject({ method: 'GET', url: '/api/docs' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  const refs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(refs.length > 0, 'the page references its assets');
  assert.deepEqual(
    refs.filter((r) => /^(https?:)?\/\//.test(r)),
    [],
    'no asset from another host (no CDN)',
  );
  const script = refs.find((r) => r.endsWith('.js'))!;
  const asset = await app.inject({ method: 'GET', url: new URL(script, 'http://master/api/docs').pathname });
  assert.equal(asset.statusCode, 200, `${script} is served`);
  assert.ok(asset.body.length > 1000);
  // The UI reads the description next to it.
  const json = await app.inject({ method: 'GET', url: '/api/docs/json' });
  assert.equal(json.statusCode, 200);
  assert.equal(json.json().info.title, 'Backplane');
});
