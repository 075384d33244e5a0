import type { MikroORM } from '@mikro-orm/core';

/** The settings row holding the boot counter; not in the settings catalogue, so never listed or editable. */
const KEY = 'event_boot_epoch';

/**
 * Counts this start of the master (1 on the first boot of a database) and returns the count.
 * One statement (upsert with RETURNING, in SQLite and PostgreSQL alike), so two masters
 * starting together on one database never get the same number.
 */
export async function nextBootEpoch(orm: MikroORM): Promise<number> {
  const row = await orm.em
    .getConnection()
    .execute<{ value: string }>(
      'insert into "settings" ("key", "value", "updated_at") values (?, \'1\', ?) ' +
        'on conflict ("key") do update set "value" = cast(cast("settings"."value" as bigint) + 1 as text), "updated_at" = excluded."updated_at" ' +
        'returning "value"',
      [KEY, new Date()],
      'get',
    );
  const epoch = Number(row.value);
  if (!Number.isSafeInteger(epoch) || epoch < 1)
    throw new Error(`the stored ${KEY} is not a positive integer: ${row.value}`);
  return epoch;
}
