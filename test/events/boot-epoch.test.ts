import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openOrm, migrate } from '../../core/db/orm.ts';
import { nextBootEpoch } from '../../core/events/boot-epoch.ts';
import { scratchPostgres } from '../helpers/databases.ts';

test('masters starting together on one PostgreSQL database each get their own boot epoch', async (t) => {
  const url = await scratchPostgres(t, 'backplane_epoch');
  if (!url) return;
  const orms = [await openOrm(url), await openOrm(url)];
  t.after(() => Promise.all(orms.map((o) => o.close())));
  await migrate(orms[0]!);
  const epochs = await Promise.all(Array.from({ length: 20 }, (_, i) => nextBootEpoch(orms[i % 2]!)));
  assert.deepEqual(
    [...epochs].sort((a, b) => a - b),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
});
