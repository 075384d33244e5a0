import { createHmac } from 'node:crypto';
import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/core';
import { SettingEntity } from '../db/entities/setting.ts';
import { ConfigError } from '../config/load-config.ts';

/**
 * What a database was sealed and encrypted with, remembered in it at the first start, so that a
 * master holding other keys refuses to start instead of failing later on every secret and every
 * restore: several masters on one database must share the master key (BACKPLANE_SECRET_KEY) and
 * the age identity (BACKPLANE_AGE_IDENTITY_FILE). Stored: an HMAC of a constant under the master
 * key (it tells two keys apart and reveals nothing of either) and the age recipient (public).
 * Neither settings key is in the settings API's allow-list, so neither is shown or exported.
 */

const MASTER_KEY_CHECK = 'system.master_key_check';
const AGE_RECIPIENT = 'system.age_recipient';

export function masterKeyCheck(masterKey: Buffer): string {
  return createHmac('sha256', masterKey).update('backplane master key check v1').digest('hex');
}

export async function checkKeys(orm: MikroORM, keys: { masterKey: Buffer; ageRecipient: string }): Promise<void> {
  const mismatch = {
    [MASTER_KEY_CHECK]: () => 'the master key (BACKPLANE_SECRET_KEY, or <data dir>/secret.key) is not the one this database\'s secrets were sealed with; every master on one database needs the same key',
    [AGE_RECIPIENT]: (stored: string) => `the age identity (BACKPLANE_AGE_IDENTITY_FILE, or <data dir>/backup.agekey) is for ${keys.ageRecipient}, but this database's backups are encrypted for ${stored}; every master on one database needs the same identity`,
  };
  const expected: Record<keyof typeof mismatch, string> = { [MASTER_KEY_CHECK]: masterKeyCheck(keys.masterKey), [AGE_RECIPIENT]: keys.ageRecipient };
  for (const key of [MASTER_KEY_CHECK, AGE_RECIPIENT] as const) {
    const stored = await storedOrRemembered(orm, key, expected[key]);
    if (stored !== expected[key]) throw new ConfigError(mismatch[key](stored));
  }
}

/** The stored value; the given one, stored, when there is none (the first master to start wins a race). */
async function storedOrRemembered(orm: MikroORM, key: string, value: string): Promise<string> {
  const found = await orm.em.fork().findOne(SettingEntity, { key });
  if (found) return found.value;
  const em = orm.em.fork();
  em.create(SettingEntity, { key, value });
  try {
    await em.flush();
    return value;
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    return (await orm.em.fork().findOneOrFail(SettingEntity, { key })).value;
  }
}
