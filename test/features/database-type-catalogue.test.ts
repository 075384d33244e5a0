import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';

interface DbTypeView {
  type: string;
  aliases: string[];
  databaseNames: string;
  taskFields: string[];
  defaults: Record<string, unknown>;
  secretFields: string[];
  configSchema: Record<string, unknown>;
}

test('GET /api/database/types describes every database driver and the task fields it reads (auth)', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  assert.equal((await call(app, 'GET', '/api/database/types')).status, 401);
  const viewer = await userWithRole(app, admin, 'viewer');
  const res = await call(app, 'GET', '/api/database/types', { token: viewer.token });
  assert.equal(res.status, 200, res.body);
  const types = res.json.data as DbTypeView[];
  const byType = new Map(types.map((d) => [d.type, d]));

  const pg = byType.get('postgresql');
  assert.deepEqual(pg?.taskFields, ['dbHost', 'dbPort', 'dbUser', 'dbPassword']);
  assert.equal(pg?.databaseNames, 'required');
  assert.equal(pg?.defaults.dbPort, 5432, "the default comes from the driver's schema");
  assert.ok(pg?.secretFields.includes('password'));

  const mysql = byType.get('mysql');
  assert.equal(mysql?.defaults.dbPort, 3306);

  const sqlite = byType.get('sqlite');
  assert.deepEqual(sqlite?.taskFields, ['dbPath']);
  assert.equal(sqlite?.databaseNames, 'none');
  assert.deepEqual(Object.keys((sqlite?.configSchema as { properties: object }).properties), ['path']);

  // Each task type the form may offer is a driver's type or alias.
  for (const d of types) assert.ok(Array.isArray(d.aliases));
});
