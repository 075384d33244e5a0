import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';

test('GET /api/settings/catalogue describes every setting GET /api/settings returns (auth)', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  assert.equal((await call(app, 'GET', '/api/settings/catalogue')).status, 401);
  const viewer = await userWithRole(app, admin, 'viewer');
  const res = await call(app, 'GET', '/api/settings/catalogue', { token: viewer.token });
  assert.equal(res.status, 200, res.body);
  const catalogue = res.json.data as {
    key: string;
    kind: string;
    description: string;
    default: string;
    secret: boolean;
    notYet?: string;
  }[];
  const values = (await call(app, 'GET', '/api/settings', { token: viewer.token })).json.data as Record<string, string>;
  assert.deepEqual(catalogue.map((c) => c.key).sort(), Object.keys(values).sort(), 'one entry per setting');
  const byKey = new Map(catalogue.map((c) => [c.key, c]));
  assert.equal(byKey.get('audit_webhook_secret')?.secret, true);
  assert.equal(byKey.get('mfa_required_for_admins')?.kind, 'boolean');
  assert.equal(byKey.get('audit_retention_days')?.kind, 'integer');
  assert.ok(byKey.get('bandwidth_limit')?.notYet, 'a setting without effect says so');
  // Defaults are what an untouched installation returns.
  for (const c of catalogue) if (!c.secret) assert.equal(values[c.key], c.default, c.key);
  // A boolean setting refuses what is not a boolean, as its kind says.
  const wrong = await call(app, 'PUT', '/api/settings', { token: admin, body: { mfa_required_for_admins: 'yes' } });
  assert.equal(wrong.status, 400);
});
