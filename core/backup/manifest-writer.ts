import type { MikroORM } from '@mikro-orm/core';
import { BackupRecordEntryEntity } from '../db/entities/backup-record.ts';
import type { ManifestEntry } from '../engine/tar-source.ts';

const BATCH = 1000;

/**
 * Stores a file artifact's manifest as it is produced, in batches of 1,000 entries. Inserts run
 * one at a time in the background; `finish` waits for them. Nothing slows the listing down when
 * the inserts fall behind it, so the batches waiting meanwhile stay in memory. (Bounding that
 * queue, with the listing waiting for it, was measured and left out: a 4 GiB, 200,000-file
 * backup peaked at 429 MiB with it against 405 without; docs/benchmarks.md.)
 */
export class ManifestWriter {
  readonly #orm: MikroORM;
  readonly #recordId: number;
  #batch: Array<{ recordId: number; path: string; size: number; mtime: Date; mode: number; entryType: string }> = [];
  #chain: Promise<void> = Promise.resolve();
  #error: unknown;
  count = 0;

  constructor(orm: MikroORM, recordId: number) {
    this.#orm = orm;
    this.#recordId = recordId;
  }

  add(entry: ManifestEntry): void {
    this.count++;
    this.#batch.push({ recordId: this.#recordId, path: entry.path, size: entry.size, mtime: entry.mtime, mode: entry.mode, entryType: entry.type });
    if (this.#batch.length >= BATCH) this.#flush();
  }

  #flush(): void {
    const rows = this.#batch;
    this.#batch = [];
    if (rows.length === 0) return;
    this.#chain = this.#chain.then(async () => {
      if (this.#error !== undefined) return;
      try {
        await this.#orm.em.fork().insertMany(BackupRecordEntryEntity, rows);
      } catch (err) {
        this.#error = err;
      }
    });
  }

  /** Stores what is left; rejects when any batch failed (the artifact is fine, its listing is not). */
  async finish(): Promise<void> {
    this.#flush();
    await this.#chain;
    if (this.#error !== undefined) throw this.#error;
  }

  /** Waits for pending inserts and drops whatever was stored (a failed run keeps no listing). */
  async discard(): Promise<void> {
    this.#batch = [];
    await this.#chain;
    await this.#orm.em.fork().nativeDelete(BackupRecordEntryEntity, { recordId: this.#recordId });
  }
}
