import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { MikroORM } from '@mikro-orm/core';
import type { Config } from '../config/config.ts';
import { BackupRecordSnapshotEntity } from '../db/entities/backup-record.ts';
import { snapshotChecksum } from '../engine/index.ts';
import type { SecretBox } from '../security/secret-box.ts';

/**
 * The GNU tar snapshot file of every differential-mode full (core/engine/archive/tar-snapshot.ts),
 * kept twice: on the host that makes the differentials (`<dataDir>/tar-snapshots/`), and sealed in
 * the database with its record, with its SHA-256. A local copy is used only when its hash matches;
 * otherwise the sealed one is written out again, and when neither exists the run is a full:
 * a lost or stale local state can cost a full, never produce a wrong differential.
 *
 * The file is small beside the data (names of a tree, about 30 bytes per file) and is held in
 * memory once while sealed or unsealed.
 */
export class TarSnapshots {
  readonly #orm: MikroORM;
  readonly #secretBox: SecretBox;
  readonly #dir: string;

  constructor(deps: { orm: MikroORM; secretBox: SecretBox; config: Config }) {
    this.#orm = deps.orm;
    this.#secretBox = deps.secretBox;
    this.#dir = join(deps.config.dataDir, 'tar-snapshots');
  }

  /** A fresh path for a run's snapshot file (a full creates it; a differential updates a copy of its base's). */
  async scratch(recordId: number): Promise<string> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const path = join(this.#dir, `run-${recordId}.snar`);
    await rm(path, { force: true });
    return path;
  }

  /** The full's snapshot file, checked against its stored hash, on disk here; undefined (with why) when there is none. */
  async of(recordId: number): Promise<{ path: string } | { missing: string }> {
    const row = await this.#orm.em.fork().findOne(BackupRecordSnapshotEntity, { recordId });
    if (!row) return { missing: `full ${recordId} has no stored snapshot file` };
    const path = this.#localPath(recordId);
    const local = await readFile(path).catch(() => undefined);
    if (local && snapshotChecksum(local) === row.checksum) return { path };
    const data = this.#unsealed(row);
    if (typeof data === 'string') return { missing: data };
    await writeFile(`${path}.part`, data, { mode: 0o600 });
    await rename(`${path}.part`, path);
    return { path };
  }

  /** The SHA-256 of a full's stored snapshot file, or undefined when it has none (an agent checks its own copy by it). */
  async checksumOf(recordId: number): Promise<string | undefined> {
    const row = await this.#orm.em.fork().findOne(BackupRecordSnapshotEntity, { recordId }, { fields: ['checksum'] });
    return row?.checksum;
  }

  /** A full's stored snapshot file, for an agent that lost its own copy; why not, as text. */
  async read(recordId: number): Promise<Buffer | string> {
    const row = await this.#orm.em.fork().findOne(BackupRecordSnapshotEntity, { recordId });
    return row ? this.#unsealed(row) : `full ${recordId} has no stored snapshot file`;
  }

  #unsealed(row: { recordId: number; sealed: string; checksum: string }): Buffer | string {
    let data: Buffer;
    try {
      data = inflateRawSync(Buffer.from(this.#secretBox.open(row.sealed, aad(row.recordId)), 'base64'));
    } catch (err) {
      return `the stored snapshot file of full ${row.recordId} cannot be opened (${(err as Error).message})`;
    }
    return snapshotChecksum(data) === row.checksum
      ? data
      : `the stored snapshot file of full ${row.recordId} is damaged`;
  }

  /** Seals a snapshot file into the database (an agent's full sends its own this way). */
  async seal(recordId: number, data: Buffer): Promise<void> {
    const sealed = this.#secretBox.seal(deflateRawSync(data).toString('base64'), aad(recordId));
    await this.#orm.em
      .fork()
      .upsert(BackupRecordSnapshotEntity, { recordId, checksum: snapshotChecksum(data), size: data.length, sealed });
  }

  /** Seals a full's snapshot file into the database and keeps it here. */
  async store(recordId: number, file: string): Promise<void> {
    await this.seal(recordId, await readFile(file));
    await rename(file, this.#localPath(recordId)).catch(async () => {
      await copyFile(file, this.#localPath(recordId));
      await rm(file, { force: true });
    });
  }

  /** A differential's working copy of its base's snapshot file. */
  async copyFor(baseFile: string, recordId: number): Promise<string> {
    const path = await this.scratch(recordId);
    await copyFile(baseFile, path);
    return path;
  }

  /** Forgets a record's snapshot file (its record is deleted, or its run failed). */
  async remove(recordId: number): Promise<void> {
    await this.#orm.em.fork().nativeDelete(BackupRecordSnapshotEntity, { recordId });
    await rm(this.#localPath(recordId), { force: true });
    await rm(join(this.#dir, `run-${recordId}.snar`), { force: true });
  }

  /** A run's scratch file, once it is not needed. */
  async discard(path: string): Promise<void> {
    await rm(path, { force: true });
  }

  #localPath(recordId: number): string {
    return join(this.#dir, `record-${recordId}.snar`);
  }
}

function aad(recordId: number): string {
  return `tar-snapshot:${recordId}`;
}
