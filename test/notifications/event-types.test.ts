import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';

test('GET /api/notifications/event-types lists what eventTypes accepts (auth), each described', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  assert.equal((await call(app, 'GET', '/api/notifications/event-types')).status, 401);
  const viewer = await userWithRole(app, admin, 'viewer');
  const res = await call(app, 'GET', '/api/notifications/event-types', { token: viewer.token });
  assert.equal(res.status, 200, res.body);
  const types = res.json.data as { type: string; description: string }[];
  assert.ok(types.some((e) => e.type === 'backup_failed'));
  assert.ok(types.every((e) => e.description.length > 0));

  // Every listed type is accepted by a channel, and a type not listed is refused.
  const body = {
    name: 'hook',
    type: 'webhook',
    config: { url: 'http://127.0.0.1:9/hook' },
    eventTypes: types.map((e) => e.type),
  };
  const created = await call(app, 'POST', '/api/notifications', { token: admin, body });
  assert.equal(created.status, 200, created.body);
  const refused = await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: { ...body, name: 'other', eventTypes: ['backup_exploded'] },
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.code, 'NOTIFICATION_INVALID');
});
