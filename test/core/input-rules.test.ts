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
  const asString = await call(app, 'POST', '/api/users', { token: admin, body: { username: 'bob', password: 'bob-password', disabled: 'true' } });
  assert.equal(asString.status, 400);
  assert.equal(asString.json.code, 'INVALID_INPUT');
  const asNumber = await call(app, 'POST', '/api/users', { token: admin, body: { username: 'bob', password: 12345678 } });
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
