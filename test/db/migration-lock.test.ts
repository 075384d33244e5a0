import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { migrate, openOrm } from '../../core/db/orm.ts';
import { MIGRATIONS } from '../../core/db/migrations/index.ts';
import { scratchPostgres } from '../helpers/databases.ts';

test('three masters starting together on one PostgreSQL database migrate it once', { timeout: 60_000 }, async (t) => {
  const url = await scratchPostgres(t, 'bp_migration_lock');
  if (!url) return;
  const orms = await Promise.all([0, 1, 2].map(() => openOrm(url)));
  t.after(() => Promise.all(orms.map((orm) => orm.close())));
  const applied = await Promise.all(orms.map((orm) => migrate(orm)));
  assert.deepEqual(
    applied.flat().sort(),
    MIGRATIONS.map((m) => m.name).sort(),
    'every migration ran exactly once, on one of them',
  );
  assert.equal(
    applied.filter((names) => names.length > 0).length,
    1,
    'one master migrated, the others found nothing pending',
  );
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      'select name, count(*)::int as n from mikro_orm_migrations group by name having count(*) > 1',
    );
    assert.deepEqual(rows, []);
  } finally {
    await client.end();
  }
});
