import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin } from '../helpers/build.ts';
import { AuditLogEntity } from '../../core/db/entities/audit-log.ts';

test('audit_retention_days deletes older entries; 0 keeps everything', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const em = app.diContainer.cradle.orm.em.fork();
  const old = em.create(AuditLogEntity, {
    category: 'test',
    action: 'old',
    createdAt: new Date(Date.now() - 40 * 86400_000),
  });
  em.create(AuditLogEntity, { category: 'test', action: 'recent', createdAt: new Date(Date.now() - 5 * 86400_000) });
  await em.flush();

  assert.equal(await app.diContainer.cradle.auditRetention.sweep(), 0, 'retention is off by default');
  await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_retention_days: '30' } });
  assert.equal(await app.diContainer.cradle.auditRetention.sweep(), 1);
  const left = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'test' } });
  assert.deepEqual(
    left.json.data.items.map((e: { action: string }) => e.action),
    ['recent'],
  );
  assert.equal(await em.fork().findOne(AuditLogEntity, { id: old.id }), null);
});
