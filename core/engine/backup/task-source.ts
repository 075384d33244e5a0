import type { Readable } from 'node:stream';
import type { DatabaseDriverType, ProviderDeps } from '@backplane/plugin-api';
import { compressorProgram, dumpCompressor, type Compression } from '../stream/compression.ts';
import { createGnuTarSource, gnuTarProgram, tarCompressor, type TarIncremental } from '../archive/gnu-tar-source.ts';
import { createTarSource, type ManifestEntry } from '../archive/tar-source.ts';
import { driverFor } from '../host/driver-for.ts';
import { DUMP_ARCHIVE_EXTENSION, createDumpArchive, dumpEntryName } from '../archive/dump-archive.ts';

export interface TaskSource {
  stream: Readable;
  /** Raw artifact extension (`tar`, `sql`, `sqlite`). */
  extension: string;
  /** Settles when the producer is finished; rejects when it failed. */
  done: Promise<void>;
  /** `stream` is compressed already (with the run's compression). */
  compressed?: boolean;
  /**
   * Uncompressed bytes, for a source whose stream is compressed: so far (exact once `done`),
   * or undefined while the source cannot tell (a dump compressed by its own program says it at the end).
   */
  rawBytes?: () => number | undefined;
  /** Database sources: row counts per table, read right after the dump for deep verification. */
  tableStats?: () => Promise<Record<string, number>>;
  /** Several databases (one dump each in a tar): row counts per table of each, by database. */
  databaseStats?: () => Promise<Record<string, Record<string, number>>>;
}

export interface SourceContext {
  drivers: DatabaseDriverType[];
  deps: ProviderDeps;
  /** The task's unsealed database password ('' when none). */
  password: string;
  onWarning: (message: string) => void;
  onEntry: (entry: ManifestEntry) => void;
  signal: AbortSignal;
  /** The run's compression: a file source compresses in a program of its own when it can. */
  compression?: Compression;
  /** File tasks in differential mode: a `--listed-incremental` tar (GNU tar only). */
  incremental?: TarIncremental;
}

/**
 * What a run reads, as plain data: the master builds it from a task, an agent receives it in
 * its task specification. Database fields are unused for file tasks.
 */
export interface SourceSpec {
  type: string;
  sourcePaths: string[];
  excludePatterns: string[];
  dbHost: string;
  dbPort: number;
  dbUser: string;
  /** Comma-separated database names ('' = the driver's default). */
  dbName: string;
  dbPath: string;
}

/** The connection a database driver gets from a task: only the fields its schema declares. */
export function driverConfig(
  driver: DatabaseDriverType,
  task: Pick<SourceSpec, 'dbHost' | 'dbPort' | 'dbUser' | 'dbPath'>,
  password: string,
): Record<string, unknown> {
  const props = (driver.configSchema as { properties?: Record<string, unknown> }).properties ?? {};
  const candidates: Record<string, unknown> = {
    host: task.dbHost,
    port: task.dbPort,
    user: task.dbUser,
    password,
    path: task.dbPath,
  };
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(candidates)) {
    if (key in props && value !== '' && value !== 0) config[key] = value;
  }
  return config;
}

export function databaseNames(task: Pick<SourceSpec, 'dbName'>): string[] {
  return task.dbName
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * What is wrong with a `dbName` list ("a,b"), or undefined. Several names become one dump each
 * in a tar, named after the database: so no empty name, no name twice, none that is not a plain
 * file name.
 */
export function databaseListProblem(dbName: string): string | undefined {
  const names = dbName.split(',').map((s) => s.trim());
  if (names.length === 1) return names[0] === '' ? 'is required' : undefined;
  if (names.some((n) => n === '')) return 'lists an empty database name (names are separated by single commas)';
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) return `names database "${twice}" twice`;
  const odd = names.find((n) => n === '.' || n === '..' || /[/\\\0]/.test(n) || Buffer.byteLength(n) > 200);
  if (odd !== undefined)
    return `"${odd}" cannot be one of several databases (no / \\ or NUL, not . or .., at most 200 bytes)`;
  return undefined;
}

/** The raw artifact's extension for a task: `tar`, the driver's (`sql`, `sqlite`), or the dump archive's. */
export function rawExtensionOf(
  task: Pick<SourceSpec, 'type' | 'dbName'>,
  driver: DatabaseDriverType | undefined,
): string {
  if (task.type === 'file') return 'tar';
  if (driver && driver.databaseNames !== 'none' && databaseNames(task).length > 1) return DUMP_ARCHIVE_EXTENSION;
  return driver?.artifactExtension ?? 'sql';
}

/** Opens what a task backs up as one byte stream: a tar of its paths or a database dump. */
export async function openTaskSource(task: SourceSpec, ctx: SourceContext): Promise<TaskSource> {
  if (task.type === 'file') {
    const options = {
      paths: task.sourcePaths,
      excludes: task.excludePatterns,
      onWarning: (message: string) => ctx.onWarning(message),
      onEntry: ctx.onEntry,
      signal: ctx.signal,
    };
    const program = gnuTarProgram();
    if (ctx.incremental && !program) throw new Error('a differential backup needs GNU tar, which is not installed');
    if (program) {
      const tar = createGnuTarSource(program, {
        ...options,
        incremental: ctx.incremental,
        compressor: ctx.compression ? tarCompressor(compressorProgram(ctx.compression)) : undefined,
      });
      return {
        stream: tar.stream,
        extension: 'tar',
        done: tar.done.then(() => undefined),
        compressed: tar.compressed,
        rawBytes: tar.rawBytes,
      };
    }
    const tar = createTarSource(options);
    return { stream: tar.stream, extension: 'tar', done: tar.done.then(() => undefined) };
  }
  const driver = driverFor(ctx.drivers, task.type);
  if (!driver) throw new Error(`no database driver is installed for task type "${task.type}"`);
  const instance = await driver.create(driverConfig(driver, task, ctx.password), ctx.deps);
  const databases = driver.databaseNames === 'none' ? [] : databaseNames(task);
  const statsOf = instance.tableStats?.bind(instance);
  if (databases.length > 1) {
    const archive = createDumpArchive({
      databases,
      dump: (database) => instance.dump({ databases: [database] }),
      entryName: (database) => dumpEntryName(database, driver),
      tempDir: ctx.deps.tempDir,
      onEntry: ctx.onEntry,
      signal: ctx.signal,
    });
    const databaseStats = async (): Promise<Record<string, Record<string, number>>> => {
      const stats: Record<string, Record<string, number>> = {};
      for (const database of databases) stats[database] = await statsOf!(database);
      return stats;
    };
    return {
      stream: archive.stream,
      extension: DUMP_ARCHIVE_EXTENSION,
      done: archive.done,
      ...(statsOf ? { databaseStats } : {}),
    };
  }
  const compressor = ctx.compression ? dumpCompressor(ctx.compression) : undefined;
  const dump = await instance.dump({ databases, ...(compressor ? { compressor } : {}) });
  const target = driver.databaseNames === 'none' ? task.dbPath : databases[0];
  return {
    stream: dump.stream,
    extension: driver.artifactExtension ?? 'sql',
    done: dump.done,
    ...(compressor && dump.compressed ? { compressed: true, rawBytes: dump.rawBytes ?? (() => undefined) } : {}),
    ...(statsOf && target ? { tableStats: () => statsOf(target) } : {}),
  };
}
