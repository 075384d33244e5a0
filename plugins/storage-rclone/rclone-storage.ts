import type { Readable } from 'node:stream';
import type { ObjectInfo, ProviderDeps, StorageInstance, TestResult } from '@backplane/plugin-api';
import { checkKey } from './keys.ts';
import { getObject } from './download.ts';
import { listObjects } from './listing.ts';
import { probeRemote } from './probe.ts';
import { RcloneRunner, STANDARD } from './rclone-runner.ts';
import type { RemoteDefinition } from './remote-definition.ts';
import { deleteFile, statFile } from './remote-files.ts';
import { removeStaleTemporaries, removeTemporaries } from './temporaries.ts';
import { putObject } from './upload.ts';
import { remoteUsage } from './usage.ts';

/**
 * A storage target on an rclone remote, one rclone child process per operation:
 * put = `rcat` (to a temporary name, then `moveto`; upload.ts), get = `cat --offset --count`
 * (download.ts), list = `lsjson -R` (listing.ts), stat = `lsjson --stat`, delete = `deletefile`
 * (remote-files.ts), usage = `about --json` (usage.ts), the connection probe (probe.ts) and the
 * removal of upload temporaries (temporaries.ts). rclone-runner.ts runs the children and reads
 * their outcome.
 */

export interface RcloneStorageOptions {
  binary: string;
  /** The environment the child's is derived from (ProviderDeps.env, else process.env). */
  env: Record<string, string | undefined>;
  definition: RemoteDefinition;
  log?: ProviderDeps['log'];
}

export class RcloneStorage implements StorageInstance {
  readonly #r: RcloneRunner;

  constructor(options: RcloneStorageOptions) {
    this.#r = new RcloneRunner(options.binary, options.env, options.definition, options.log);
  }

  get backend(): string {
    return this.#r.def.backend;
  }

  put(
    key: string,
    body: Readable,
    meta: { size?: number; contentType?: string; signal?: AbortSignal } = {},
  ): Promise<{ size: number }> {
    return putObject(this.#r, key, body, meta.size, { profile: 'standard', signal: meta.signal });
  }

  get(key: string, range?: { start: number; end?: number }, options?: { signal?: AbortSignal }): Promise<Readable> {
    return getObject(this.#r, key, range, options?.signal ? { ...STANDARD, signal: options.signal } : STANDARD);
  }

  list(prefix: string): AsyncIterable<ObjectInfo> {
    return listObjects(this.#r, prefix);
  }

  async stat(key: string): Promise<ObjectInfo | undefined> {
    checkKey(key);
    return statFile(this.#r, await this.#r.prepare(), key, STANDARD);
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await deleteFile(this.#r, await this.#r.prepare(), key, STANDARD);
  }

  removeTemporaries(key: string): Promise<number> {
    return removeTemporaries(this.#r, key);
  }

  removeStaleTemporaries(olderThan: Date, keep: Iterable<string> = []): Promise<number> {
    return removeStaleTemporaries(this.#r, olderThan, keep);
  }

  usage(): Promise<{ usedBytes?: number; totalBytes?: number; freeBytes?: number }> {
    return remoteUsage(this.#r);
  }

  testConnection(): Promise<TestResult> {
    return probeRemote(this.#r);
  }
}
