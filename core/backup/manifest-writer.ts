import type { MikroORM } from '@mikro-orm/core';
import { AggregateSql } from '../db/aggregate-sql.ts';
import { BackupRecordEntryEntity } from '../db/entities/backup-record.ts';
import type { ManifestEntry, ManifestEntryType } from '../engine/index.ts';

const BATCH = 1000;
const COLUMNS = ['record_id', 'path', 'size', 'mtime', 'mode', 'entry_type'] as const;
const TYPES: readonly ManifestEntryType[] = ['file', 'directory', 'symlink'];
/** Bytes of one encoded entry besides its path: path length (4), size (8), mtime (8), mode (4), type (1). */
const FIXED = 25;

/** The insert of `rows` rows: one text per row count, so every full batch is the same statement. */
function insertSql(rows: number): string {
  const row = `(${COLUMNS.map(() => '?').join(', ')})`;
  return `insert into backup_record_entries (${COLUMNS.join(', ')}) values ${Array.from({ length: rows }, () => row).join(', ')}`;
}
let fullBatchSql: string | undefined;

/** A batch's entries encoded into one buffer until their insert. */
class Batch {
  buf = Buffer.allocUnsafe(128 * 1024);
  length = 0;
  rows = 0;

  add(entry: ManifestEntry): void {
    const most = FIXED + entry.path.length * 3;
    if (this.length + most > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + most));
      this.buf.copy(bigger, 0, 0, this.length);
      this.buf = bigger;
    }
    const buf = this.buf;
    let at = this.length;
    const pathBytes = buf.write(entry.path, at + 4);
    buf.writeUInt32LE(pathBytes, at);
    at += 4 + pathBytes;
    buf.writeDoubleLE(entry.size, at);
    buf.writeDoubleLE(entry.mtime.getTime(), at + 8);
    buf.writeUInt32LE(entry.mode, at + 16);
    buf.writeUInt8(TYPES.indexOf(entry.type), at + 20);
    this.length = at + 21;
    this.rows++;
  }

  /** The bound values of the batch's insert. */
  values(recordId: number, time: (date: Date) => unknown): unknown[] {
    const { buf } = this;
    const values: unknown[] = new Array(this.rows * COLUMNS.length);
    let at = 0;
    for (let i = 0, v = 0; i < this.rows; i++) {
      const pathBytes = buf.readUInt32LE(at);
      at += 4;
      values[v++] = recordId;
      values[v++] = buf.toString('utf8', at, at + pathBytes);
      at += pathBytes;
      values[v++] = buf.readDoubleLE(at);
      values[v++] = time(new Date(buf.readDoubleLE(at + 8)));
      values[v++] = buf.readUInt32LE(at + 16);
      values[v++] = TYPES[buf.readUInt8(at + 20)];
      at += 21;
    }
    return values;
  }
}

/**
 * Stores a file artifact's manifest as it is produced, in batches of 1,000 entries. Inserts run
 * one at a time in the background; `finish` waits for them. Nothing slows the listing down when
 * the inserts fall behind it, so the batches waiting meanwhile stay in memory. (Bounding that
 * queue, with the listing waiting for it, was measured and left out: a 4 GiB, 200,000-file
 * backup peaked at 429 MiB with it against 405 without; docs/benchmarks.md.)
 *
 * A batch is one statement whose values are bound parameters (AggregateSql), not an
 * `em.insertMany`: the ORM writes every value into the SQL text, so each batch was a statement
 * text of its own (about 95 KB), and SQLite's statement cache (core/db/statement-cache.ts, up
 * to 500 statements) kept every one of them prepared, so the master's memory grew with the
 * file count (docs/benchmarks.md, "Backup peak memory and the file count"). Until its insert a
 * batch waits encoded in one buffer, not as strings and objects: it outlives several
 * young-generation collections, so what it held per entry was promoted to the old generation
 * and piled up there as garbage until the next full collection.
 */
export class ManifestWriter {
  readonly #orm: MikroORM;
  readonly #recordId: number;
  readonly #sql: AggregateSql;
  #batch = new Batch();
  /** A batch stored already, to fill again: two buffers serve a whole run while the inserts keep up. */
  #spare: Batch | undefined;
  #chain: Promise<void> = Promise.resolve();
  #error: unknown;
  count = 0;

  constructor(orm: MikroORM, recordId: number) {
    this.#orm = orm;
    this.#recordId = recordId;
    this.#sql = new AggregateSql(orm.em.fork());
  }

  add(entry: ManifestEntry): void {
    this.count++;
    this.#batch.add(entry);
    if (this.#batch.rows >= BATCH) this.#flush();
  }

  #flush(): void {
    const batch = this.#batch;
    if (batch.rows === 0) return;
    this.#batch = this.#spare ?? new Batch();
    this.#spare = undefined;
    this.#chain = this.#chain.then(async () => {
      if (this.#error !== undefined) return;
      try {
        const sql = batch.rows === BATCH ? (fullBatchSql ??= insertSql(BATCH)) : insertSql(batch.rows);
        await this.#sql.run(
          sql,
          batch.values(this.#recordId, (date) => this.#sql.time(date)),
        );
      } catch (err) {
        this.#error = err;
      }
      batch.length = 0;
      batch.rows = 0;
      this.#spare = batch;
    });
  }

  /** Stores what is left; rejects when any batch failed (the artifact is fine, its listing is not). */
  async finish(): Promise<void> {
    this.#flush();
    await this.#chain;
    if (this.#error !== undefined) throw this.#error;
  }

  /**
   * Waits for pending inserts and drops whatever was stored (a failed run keeps no listing). The
   * writer starts again empty: a repository run whose walk did not match its snapshot lists the
   * snapshot instead (repository-run.ts).
   */
  async discard(): Promise<void> {
    this.#batch.length = 0;
    this.#batch.rows = 0;
    await this.#chain;
    await this.#orm.em.fork().nativeDelete(BackupRecordEntryEntity, { recordId: this.#recordId });
    this.count = 0;
    this.#error = undefined;
  }
}
