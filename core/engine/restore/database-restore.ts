import type { Readable } from 'node:stream';
import type { DatabaseDriverType, DatabaseDriverInstance } from '@backplane/plugin-api';
import { databaseNames, type SourceSpec } from '../backup/task-source.ts';
import type { RunLog } from '../host/run-log.ts';

/** At most `bytes` bytes of UTF-8 from the start of `text`, never splitting a character (names are limited in bytes). */
export function utf8Prefix(text: string, bytes: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (used + n > bytes) break;
    out += ch;
    used += n;
  }
  return out;
}

/** The database a restore writes into: the one asked for, else the task's (its path for file databases). */
export function restoreTargetOf(
  type: DatabaseDriverType,
  task: Pick<SourceSpec, 'dbName' | 'dbPath'>,
  requested: string,
): string {
  return requested || (type.databaseNames === 'none' ? task.dbPath || task.dbName : (databaseNames(task)[0] ?? ''));
}

/**
 * Restores a dump into `target` with the driver's safest means: beside the target and swapped
 * in on success where the driver can swap (the target is never half-restored), else straight
 * in, dropping a database it created itself when the restore fails. `open` gives a fresh
 * checked raw stream each time it is called. Used by the master and by agents alike.
 */
export async function restoreDatabase(
  driver: { type: DatabaseDriverType; instance: DatabaseDriverInstance },
  target: string,
  restoreId: number,
  open: () => Promise<Readable>,
  log: RunLog,
): Promise<void> {
  const { instance } = driver;
  if (instance.ensureDatabase && instance.replaceDatabase) {
    const scratch = `${utf8Prefix(target, 40)}__bp_restore_${restoreId}`;
    await instance.dropDatabase?.(scratch);
    await instance.ensureDatabase(scratch);
    try {
      log('info', `restoring into scratch database ${scratch}`);
      await instance.restore(await open(), { database: scratch });
      log('info', `swapping ${scratch} into place as ${target}`);
      await instance.replaceDatabase(target, scratch);
    } catch (err) {
      await instance.dropDatabase?.(scratch).catch(() => undefined);
      throw err;
    }
    return;
  }
  const created = (await instance.ensureDatabase?.(target)) ?? false;
  if (created) log('info', `created database ${target}`);
  try {
    log('info', `restoring into ${target}`);
    await instance.restore(await open(), { database: target });
  } catch (err) {
    if (created) await instance.dropDatabase?.(target).catch(() => undefined);
    throw err;
  }
}
