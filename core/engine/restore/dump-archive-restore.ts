import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import type { DatabaseDriverInstance, DatabaseDriverType } from '@backplane/plugin-api';
import { databaseOfEntry } from '../archive/dump-archive.ts';
import { checkDump } from './artifact-check.ts';
import { restoreDatabase } from './database-restore.ts';
import { nothingSelectedText } from './selection.ts';
import type { RunLog } from '../host/run-log.ts';

/**
 * Reading a several-database artifact (see core/engine/archive/dump-archive.ts): one tar, one dump per
 * database. Each dump is handed on exactly as a single-database artifact's bytes would be.
 */

type Driver = Pick<DatabaseDriverType, 'artifactExtension' | 'checkDump'>;

/** Calls `each` with every entry in archive order, its database (undefined: not a dump) and its bytes. */
export async function forEachDump(
  raw: Readable,
  driver: Driver,
  each: (database: string | undefined, name: string, body: Readable) => Promise<void>,
): Promise<void> {
  const extract = tar.extract();
  let feedError: unknown;
  const feeding = pipeline(raw, extract).catch((err: unknown) => {
    feedError ??= err;
  });
  try {
    for await (const entry of extract) {
      // A Node stream: the restore tools' plumbing relies on its state (errored, ended).
      const body = Readable.from(entry as AsyncIterable<Buffer>, { objectMode: false });
      body.on('error', () => undefined); // whoever reads it sees the error; an unread one is drained below
      await each(databaseOfEntry(entry.header.name, driver), entry.header.name, body);
      entry.resume();
    }
  } catch (err) {
    extract.destroy();
    raw.destroy();
    await feeding;
    throw err;
  }
  await feeding;
  if (feedError !== undefined) throw feedError;
}

/**
 * Reads the whole archive: every entry must be a dump passing the driver's header and trailer
 * check (and, given the stored manifest, exactly the listed dumps of the listed sizes).
 */
export async function checkDumpArchive(
  raw: Readable,
  driver: DatabaseDriverType | undefined,
  manifest?: Map<string, number>,
): Promise<{ databases: string[]; bytes: number }> {
  const databases: string[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  await forEachDump(raw, driver ?? {}, async (database, name, body) => {
    if (database === undefined)
      throw new Error(`the archive holds ${JSON.stringify(name)}, which is not a database dump`);
    let checked: { bytes: number };
    try {
      checked = await checkDump(body, driver);
    } catch (err) {
      throw new Error(`the dump of ${database}: ${(err as Error).message}`);
    }
    const expected = manifest?.get(name);
    if (manifest && expected === undefined) throw new Error(`the dump of ${database} is not in the manifest`);
    if (expected !== undefined && expected >= 0 && expected !== checked.bytes)
      throw new Error(`the dump of ${database} has ${checked.bytes} bytes, the manifest says ${expected}`);
    seen.add(name);
    databases.push(database);
    bytes += checked.bytes;
  });
  const absent = manifest ? [...manifest.keys()].filter((name) => !seen.has(name)) : [];
  if (absent.length > 0) throw new Error(`the archive misses the dumps ${absent.join(', ')} listed in its manifest`);
  if (databases.length === 0) throw new Error('the archive holds no database dump');
  return { databases, bytes };
}

export interface DumpArchiveRestore {
  driver: { type: DatabaseDriverType; instance: DatabaseDriverInstance };
  /** Databases to restore; empty = every one in the archive. */
  selected: string[];
  /** Restore the one selected database under this name instead of its own ('' = its own). */
  targetDatabase: string;
  restoreId: number;
  log: RunLog;
  signal?: AbortSignal;
}

/**
 * Restores databases from a several-database artifact, each into its own name (or the one
 * selected into `targetDatabase`), each with the driver's safest means (restoreDatabase). The
 * whole artifact is read and every dump checked first: a restore that stops at the second
 * database because the artifact is bad would leave the first one restored and the rest not.
 * `open` gives a fresh checked raw stream each call. Returns the databases restored.
 */
export async function restoreDumpArchive(open: () => Promise<Readable>, o: DumpArchiveRestore): Promise<string[]> {
  const listing = await checkDumpArchive(await open(), o.driver.type);
  o.log('info', `artifact checked: dumps of ${listing.databases.join(', ')}`);
  const missing = o.selected.filter((name) => !listing.databases.includes(name));
  if (missing.length > 0) throw new Error(nothingSelectedText('databases', missing));
  const chosen = o.selected.length > 0 ? o.selected : listing.databases;
  if (o.targetDatabase && chosen.length !== 1) throw new Error('targetDatabase needs exactly one selected database');
  if (o.signal?.aborted) throw o.signal.reason;
  const done: string[] = [];
  await forEachDump(await open(), o.driver.type, async (database, _name, body) => {
    if (database === undefined || !chosen.includes(database) || done.includes(database)) return;
    if (o.signal?.aborted) throw o.signal.reason;
    const target = o.targetDatabase || database;
    o.log('info', `restoring the dump of ${database} into ${target}`);
    await restoreDatabase(o.driver, target, o.restoreId, () => Promise.resolve(body), o.log);
    done.push(database);
  });
  const lost = chosen.filter((name) => !done.includes(name));
  if (lost.length > 0)
    throw new Error(`the dumps of ${lost.join(', ')} were not found on the second read of the artifact`);
  return done;
}
