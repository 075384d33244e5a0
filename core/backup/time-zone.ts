import type { MikroORM } from '@mikro-orm/core';
import { SettingEntity } from '../db/entities/setting.ts';

/** The server's own zone, as Intl resolves it (TZ or the system's). */
export function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The zone schedules and maintenance windows are read in: the `timezone` setting, else the server's. */
export async function scheduleTimeZone(orm: MikroORM): Promise<string> {
  const row = await orm.em.fork().findOne(SettingEntity, { key: 'timezone' });
  return row?.value ? row.value : serverTimeZone();
}
