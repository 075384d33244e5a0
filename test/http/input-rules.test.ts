import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin } from '../helpers/build.ts';

test('NUL characters anywhere in the input are a 400, never a 500', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const queries: Record<string, string>[] = [{ keyword: 'a\u0000b' }, { category: '\u0000' }, { username: 'x\u0000' }];
  for (const query of queries) {
    const res = await call(app, 'GET', '/api/audit-logs', { token: admin, query });
    assert.equal(res.status, 400, JSON.stringify(query));
    assert.equal(res.json.code, 'INVALID_INPUT');
  }
  const body = await call(app, 'PUT', '/api/settings', { token: admin, body: { site_name: 'a\u0000b' } });
  assert.equal(body.status, 400);
  const key = await call(app, 'PUT', '/api/settings', { token: admin, body: { ['site\u0000name']: 'x' } });
  assert.equal(key.status, 400);
});

test('JSON bodies are not coerced: a string is not a boolean, a number is not a string', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const asString = await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'bob', password: 'bob-password', disabled: 'true' },
  });
  assert.equal(asString.status, 400);
  assert.equal(asString.json.code, 'INVALID_INPUT');
  const asNumber = await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'bob', password: 12345678 },
  });
  assert.equal(asNumber.status, 400);
  // Query strings are still read as the schema's types.
  const paged = await call(app, 'GET', '/api/users', { token: admin, query: { limit: '1', offset: '0' } });
  assert.equal(paged.status, 200);
  assert.equal(paged.json.data.length, 1);
});

test('integer ids are plain decimal digits', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  for (const id of ['1e3', '0x10', '%201', '1.0', '+1', '01', '0', '-1', '99999999999999999999']) {
    const res = await call(app, 'DELETE', `/api/users/${id}`, { token: admin });
    assert.equal(res.status, 400, id);
    assert.equal(res.json.code, 'INVALID_ID', id);
  }
  assert.equal((await call(app, 'DELETE', '/api/users/424242', { token: admin })).json.code, 'USER_NOT_FOUND');
});

test('numbers no column can hold (1e309 is Infinity, integers beyond 2^53) are a 400 in queries and bodies, never a 500', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  for (const [url, query] of [
    ['/api/backup/records', { taskId: '1e309' }],
    ['/api/backup/records', { nodeId: '1e309' }],
    ['/api/restore/records', { taskId: '1e309' }],
    ['/api/verify/records', { taskId: '-1e309' }],
    ['/api/backup/records', { taskId: '99999999999999999999' }],
    ['/api/users', { limit: '1e309' }],
  ] as const) {
    const res = await call(app, 'GET', url, { token: admin, query });
    assert.equal(res.status, 400, `${url} ${JSON.stringify(query)}: ${res.body}`);
    assert.equal(res.json.code, 'INVALID_INPUT');
  }
  const raw = await app.inject({
    method: 'POST',
    url: '/api/api-keys',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    payload: '{"name":"k","role":"viewer","ttlHours":1e309}',
  });
  assert.equal(raw.statusCode, 400, raw.body);
  assert.equal(raw.json().code, 'INVALID_INPUT');
  // Ordinary large values still pass.
  assert.equal(
    (
      await call(app, 'GET', '/api/backup/records', {
        token: admin,
        query: { taskId: String(Number.MAX_SAFE_INTEGER) },
      })
    ).status,
    200,
  );
});

test('every list takes offset without limit (SQL needs a limit with an offset: lists without a default one must supply it)', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const lists = app.accessTable.filter(
    (r) =>
      r.method === 'GET' &&
      r.url.startsWith('/api/') &&
      !r.url.includes(':') &&
      r.access !== 'agent' &&
      r.access !== 'public',
  );
  assert.ok(lists.length >= 10, `list routes: ${lists.length}`);
  for (const route of lists) {
    const res = await call(app, 'GET', route.url, {
      token: admin,
      query: { offset: '1' },
      headers: { accept: 'application/json' },
    });
    if (res.json?.code === 'UPDATE_CHECK_FAILED') continue; // the release feed is not reachable from here
    assert.ok(res.status < 500, `${route.url}?offset=1 answered ${res.status} ${res.body.slice(0, 200)}`);
  }
});
