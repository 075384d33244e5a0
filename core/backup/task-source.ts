import type { Readable } from 'node:stream';
import type { BackupTask } from '../db/entities/backup-task.ts';
import type { DatabaseDriverType, ProviderDeps } from '../plugin-host/contracts.ts';
import { createTarSource, type ManifestEntry } from '../engine/tar-source.ts';
import { driverFor } from '../plugin-host/driver-for.ts';

export interface TaskSource {
  stream: Readable;
  /** Raw artifact extension (`tar`, `sql`, `sqlite`). */
  extension: string;
  /** Settles when the producer is finished; rejects when it failed. */
  done: Promise<void>;
  /** Database sources: row counts per table, read right after the dump for deep verification. */
  tableStats?: () => Promise<Record<string, number>>;
}

export interface SourceContext {
  drivers: DatabaseDriverType[];
  deps: ProviderDeps;
  /** The task's unsealed database password ('' when none). */
  password: string;
  onWarning: (message: string) => void;
  onEntry: (entry: ManifestEntry) => void;
  signal: AbortSignal;
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

export function sourceSpecOf(task: BackupTask): SourceSpec {
  return {
    type: task.type,
    sourcePaths: JSON.parse(task.sourcePaths) as string[],
    excludePatterns: JSON.parse(task.excludePatterns) as string[],
    dbHost: task.dbHost, dbPort: task.dbPort, dbUser: task.dbUser, dbName: task.dbName, dbPath: task.dbPath,
  };
}

/** The connection a database driver gets from a task: only the fields its schema declares. */
export function driverConfig(driver: DatabaseDriverType, task: Pick<SourceSpec, 'dbHost' | 'dbPort' | 'dbUser' | 'dbPath'>, password: string): Record<string, unknown> {
  const props = (driver.configSchema as { properties?: Record<string, unknown> }).properties ?? {};
  const candidates: Record<string, unknown> = { host: task.dbHost, port: task.dbPort, user: task.dbUser, password, path: task.dbPath };
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(candidates)) {
    if (key in props && value !== '' && value !== 0) config[key] = value;
  }
  return config;
}

export function databaseNames(task: Pick<SourceSpec, 'dbName'>): string[] {
  return task.dbName.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** Opens what a task backs up as one byte stream: a tar of its paths or a database dump. */
export async function openTaskSource(task: SourceSpec, ctx: SourceContext): Promise<TaskSource> {
  if (task.type === 'file') {
    const tar = createTarSource({
      paths: task.sourcePaths,
      excludes: task.excludePatterns,
      onWarning: (message) => ctx.onWarning(message),
      onEntry: ctx.onEntry,
      signal: ctx.signal,
    });
    return { stream: tar.stream, extension: 'tar', done: tar.done.then(() => undefined) };
  }
  const driver = driverFor(ctx.drivers, task.type);
  if (!driver) throw new Error(`no database driver is installed for task type "${task.type}"`);
  const instance = await driver.create(driverConfig(driver, task, ctx.password), ctx.deps);
  const databases = driver.databaseNames === 'none' ? [] : databaseNames(task);
  const dump = await instance.dump({ databases });
  const statsOf = instance.tableStats?.bind(instance);
  const target = driver.databaseNames === 'none' ? task.dbPath : databases[0];
  return {
    stream: dump.stream,
    extension: driver.artifactExtension ?? 'sql',
    done: dump.done,
    ...(statsOf && target ? { tableStats: () => statsOf(target) } : {}),
  };
}
