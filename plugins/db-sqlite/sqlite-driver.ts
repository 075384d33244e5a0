import { stat } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import type { Readable } from 'node:stream';
import { DatabaseSync } from 'node:sqlite';
import {
  ProviderError,
  type DatabaseDriverInstance,
  type DatabaseDriverType,
  type DiscoveredDatabase,
  type JsonSchema,
  type ProviderDeps,
  type TestResult,
} from '@backplane/plugin-api';
import { backupToStream } from './sqlite-backup.ts';
import { checkSqliteDump } from './sqlite-check.ts';
import { restoreFromStream } from './sqlite-restore.ts';

export const sqliteConfigSchema: JsonSchema = {
  type: 'object',
  required: ['path'],
  additionalProperties: false,
  properties: { path: { type: 'string', minLength: 2, maxLength: 4096, pattern: '^/' } },
};

function parsePath(config: Record<string, unknown>): string {
  const path = config.path;
  if (typeof path !== 'string' || !isAbsolute(path) || path.includes('\0')) {
    throw new ProviderError('permanent', 'sqlite: "path" must be an absolute path to the database file');
  }
  return path;
}

function fileError(err: unknown, path: string, action: string): ProviderError {
  if (err instanceof ProviderError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  const message = (err as Error).message;
  if (code === 'ENOENT' || code === 'ENOTDIR' || /unable to open database file/i.test(message)) {
    return new ProviderError('not_found', `sqlite: ${action}: ${path} does not exist or cannot be opened`, {
      cause: err,
    });
  }
  if (code === 'EACCES' || code === 'EPERM')
    return new ProviderError('auth', `sqlite: ${action}: ${message}`, { cause: err });
  return new ProviderError('permanent', `sqlite: ${action}: ${message.trim()}`, { cause: err });
}

/**
 * One SQLite file. Its single "database" is named after the file; `restore` also accepts an
 * absolute path (a sandbox file for a restore drill) in place of that name.
 */
export class SqliteDriver implements DatabaseDriverInstance {
  readonly #path: string;
  readonly #deps: ProviderDeps;

  constructor(path: string, deps: ProviderDeps) {
    this.#path = path;
    this.#deps = deps;
  }

  get name(): string {
    return basename(this.#path);
  }

  async testConnection(): Promise<TestResult> {
    let db: DatabaseSync | undefined;
    try {
      await stat(this.#path);
      db = new DatabaseSync(this.#path, { readOnly: true });
      // Opening is lazy: reading the schema proves the file really is a database.
      const row = db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number };
      return { success: true, message: `opened ${this.#path} read-only (${row.n} schema objects)` };
    } catch (err) {
      return { success: false, message: fileError(err, this.#path, 'opening').message };
    } finally {
      db?.close();
    }
  }

  async discover(): Promise<DiscoveredDatabase[]> {
    try {
      const info = await stat(this.#path);
      return [{ name: this.name, sizeBytes: info.size, system: false }];
    } catch (err) {
      throw fileError(err, this.#path, 'discovering');
    }
  }

  async dump(options: { databases: string[] }): Promise<{ stream: Readable; done: Promise<void> }> {
    const wanted = options.databases;
    if (wanted.length > 1 || (wanted.length === 1 && wanted[0] !== this.name && wanted[0] !== this.#path)) {
      throw new ProviderError('not_found', `sqlite: this driver holds only ${this.name}`);
    }
    try {
      await stat(this.#path); // opening a missing path read-only fails too, but with a vaguer message
      return await backupToStream(this.#path, this.#deps.tempDir);
    } catch (err) {
      throw fileError(err, this.#path, 'backing up');
    }
  }

  /** The file a database name stands for: this driver's own name, or an absolute path. */
  #file(database: string, action: string): string {
    const path = database === this.name ? this.#path : database;
    if (!isAbsolute(path) || path.includes('\0')) {
      throw new ProviderError(
        'permanent',
        `sqlite: ${action} ${this.name} or an absolute path, not ${JSON.stringify(database)}`,
      );
    }
    return path;
  }

  async restore(stream: Readable, options: { database: string }): Promise<void> {
    await restoreFromStream(stream, this.#file(options.database, 'restore into'));
  }

  // No ensureDatabase/dropDatabase/replaceDatabase: a restore creates its file, and replaces the
  // target by rename itself.

  /**
   * Exact row counts of every table (read-only), except SQLite's own `sqlite_*` tables and
   * virtual tables (whose module may be missing here; their shadow tables are counted).
   */
  async tableStats(database: string): Promise<Record<string, number>> {
    const path = this.#file(database, 'count the rows of');
    let db: DatabaseSync | undefined;
    try {
      await stat(path); // a read-only open of a missing file fails too, but vaguely
      db = new DatabaseSync(path, { readOnly: true });
      const tables = db
        .prepare(
          "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'" +
            " AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name",
        )
        .all() as Array<{ name: string }>;
      const stats: Record<string, number> = {};
      for (const { name } of tables) {
        const row = db.prepare(`SELECT count(*) AS n FROM "${name.replace(/"/g, '""')}"`).get() as {
          n: number | bigint;
        };
        stats[name] = Number(row.n);
      }
      return stats;
    } catch (err) {
      throw fileError(err, path, 'counting rows');
    } finally {
      db?.close();
    }
  }
}

export const sqliteType: DatabaseDriverType = {
  type: 'sqlite',
  aliases: ['sqlite'],
  artifactExtension: 'sqlite',
  databaseNames: 'none',
  displayName: 'SQLite',
  description:
    'A consistent online backup of one SQLite file (the SQLite backup API), restored atomically after an integrity check.',
  configSchema: sqliteConfigSchema,
  secretFields: [],
  // restoreFromStream writes a temp file beside the target, runs integrity_check on it and only
  // then renames it over the target: a restore that fails part-way leaves the target unchanged.
  atomicRestore: true,
  checkDump: checkSqliteDump,
  create(config, deps) {
    return new SqliteDriver(parsePath(config), deps);
  },
};
