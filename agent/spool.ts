import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ProviderError, type ObjectInfo, type StorageInstance, type TestResult } from '@backplane/plugin-api';

/** Spools live in their own folder so a start can clear what a killed agent left without touching provider scratch files. */
export function spoolDir(tempDir: string): string {
  return join(tempDir, 'spool');
}

/** Removes every spool (at start: a killed predecessor's leftovers) and recreates the folder. */
export async function resetSpools(tempDir: string): Promise<void> {
  const dir = spoolDir(tempDir);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/** A fresh, unused spool path for one command. */
export function spoolPath(tempDir: string, label: string): string {
  return join(spoolDir(tempDir), `${label}-${Date.now()}-${randomBytes(4).toString('hex')}.spool`);
}

export async function removeSpool(path: string): Promise<void> {
  await rm(path, { force: true });
}

function unsupported(what: string): never {
  throw new ProviderError('unsupported', `the relay spool does not support ${what}`);
}

/**
 * The pipeline target standing for every relay target: the stored-format artifact is written
 * once to a local file, which is then PUT to the master per relay target. Only `put` is
 * meaningful. Like any target, a failed or short stream leaves no file behind.
 */
export class SpoolStorage implements StorageInstance {
  readonly path: string;
  /** Bytes written by the last successful put. */
  size = 0;

  constructor(path: string) {
    this.path = path;
  }

  async put(_key: string, body: Readable, meta?: { size?: number; signal?: AbortSignal }): Promise<{ size: number }> {
    try {
      const file = createWriteStream(this.path, { mode: 0o600 });
      if (meta?.signal) await pipeline(body, file, { signal: meta.signal });
      else await pipeline(body, file);
      const written = (await stat(this.path)).size;
      if (meta?.size !== undefined && meta.size !== written)
        throw new Error(`the spool took ${written} bytes, expected ${meta.size}`);
      this.size = written;
      return { size: this.size };
    } catch (err) {
      await rm(this.path, { force: true });
      throw err;
    }
  }

  get(): Promise<Readable> {
    return Promise.resolve().then(() => unsupported('get'));
  }

  async *list(): AsyncIterable<ObjectInfo> {
    unsupported('list');
  }

  stat(): Promise<ObjectInfo | undefined> {
    return Promise.resolve().then(() => unsupported('stat'));
  }

  delete(): Promise<void> {
    return rm(this.path, { force: true });
  }

  testConnection(): Promise<TestResult> {
    return Promise.resolve({ success: true, message: 'local spool' });
  }
}
