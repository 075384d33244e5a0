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
  const check = masterKeyCheck(keys.masterKey);
  if ((await storedOrRemembered(orm, MASTER_KEY_CHECK, check)) !== check) {
    throw new ConfigError(
      "the master key (BACKPLANE_SECRET_KEY, or <data dir>/secret.key) is not the one this database's secrets were sealed with;" +
        ' every master on one database needs the same key',
    );
  }
  const recipient = await storedOrRemembered(orm, AGE_RECIPIENT, keys.ageRecipient);
  if (recipient !== keys.ageRecipient) {
    throw new ConfigError(
      `the age identity (BACKPLANE_AGE_IDENTITY_FILE, or <data dir>/backup.agekey) is for ${keys.ageRecipient},` +
        ` but this database's backups are encrypted for ${recipient}; every master on one database needs the same identity`,
    );
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
