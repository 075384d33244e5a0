import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import type { DatabaseDriverType } from '@backplane/plugin-api';
import type { ManifestEntry } from './tar-source.ts';
import { drained, quiet } from './tar-entry-flow.ts';

/**
 * A task naming several databases stores one tar holding one dump per database, each exactly
 * the dump a single-database task makes, named `<database>.<driver extension>`; so each stays
 * restorable on its own. The raw artifact's extension says which layout a record has.
 */
export const DUMP_ARCHIVE_EXTENSION = 'dumps.tar';

export function isDumpArchive(fileName: string): boolean {
  return /\.dumps\.tar(\.|$)/.test(fileName);
}

export function dumpEntryName(database: string, driver: Pick<DatabaseDriverType, 'artifactExtension'>): string {
  return `${database}.${driver.artifactExtension ?? 'sql'}`;
}

/** The database an archive entry holds the dump of; undefined for anything else. */
export function databaseOfEntry(
  name: string,
  driver: Pick<DatabaseDriverType, 'artifactExtension'>,
): string | undefined {
  const suffix = `.${driver.artifactExtension ?? 'sql'}`;
  return name.endsWith(suffix) && name.length > suffix.length && !name.includes('/')
    ? name.slice(0, -suffix.length)
    : undefined;
}

export interface DumpArchiveOptions {
  databases: string[];
  dump: (database: string) => Promise<{ stream: Readable; done: Promise<void> }>;
  entryName: (database: string) => string;
  /** Each dump is spooled here first: a tar entry states its size before its bytes. */
  tempDir: string;
  onEntry?: (entry: ManifestEntry) => void;
  signal: AbortSignal;
}

/**
 * Dumps the databases one after another, each into a spool file (removed once it is in the
 * tar), so the scratch space needed is the largest single dump. A failing dump fails the
 * archive before it ends: no target commits an object missing a database.
 */
export function createDumpArchive(options: DumpArchiveOptions): { stream: Readable; done: Promise<void> } {
  const pack = tar.pack();
  const { signal } = options;
  const checkAlive = (): void => {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (pack.destroyed) throw new Error('the archive stream was destroyed');
  };
  const done = (async () => {
    const dir = join(options.tempDir, `dumps-${randomBytes(6).toString('hex')}`);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      for (const [i, database] of options.databases.entries()) {
        checkAlive();
        const file = join(dir, `${i}.dump`);
        const dump = await options.dump(database);
        dump.done.catch(() => undefined);
        await pipeline(dump.stream, createWriteStream(file, { mode: 0o600 }), { signal });
        await dump.done;
        const { size } = await stat(file);
        const mtime = new Date();
        const name = options.entryName(database);
        checkAlive();
        let finish!: (err?: Error | null) => void;
        const written = new Promise<void>((res, rej) => {
          finish = (err) => (err ? rej(err) : res());
        });
        const entry = quiet(pack.entry({ name, type: 'file', size, mode: 0o600, mtime }, (err) => finish(err)));
        for await (const chunk of createReadStream(file)) {
          checkAlive();
          if (!entry.write(chunk as Buffer)) await drained(entry, signal);
        }
        entry.end(undefined);
        await written;
        await rm(file, { force: true });
        options.onEntry?.({ path: name, size, mtime, mode: 0o600, type: 'file' });
      }
      pack.finalize();
    } catch (err) {
      pack.destroy(err as Error);
      throw err;
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  })();
  done.catch(() => undefined);
  return { stream: Readable.from(pack, { objectMode: false }), done };
}
