import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openOrm, migrate, schemaDrift } from '../../core/db/orm.ts';
import { tempDir } from '../helpers/build.ts';
import { scratchPostgres } from '../helpers/databases.ts';

async function driftAfterMigrations(url: string): Promise<string> {
  const orm = await openOrm(url);
  try {
    await migrate(orm);
    return await schemaDrift(orm);
  } finally {
    await orm.close();
  }
}

test('migrations build exactly the entity schema on SQLite', async (t) => {
  const dir = await tempDir(t);
  assert.equal(await driftAfterMigrations(`sqlite:${join(dir, 'db.sqlite')}`), '');
});

test('migrations build exactly the entity schema on PostgreSQL (scale-out mode)', async (t) => {
  const url = await scratchPostgres(t, 'backplane_mig');
  if (!url) return;
  assert.equal(await driftAfterMigrations(url), '');
});
