import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import tar from 'tar-stream';
import type { DatabaseDriverType } from '@backplane/plugin-api';
import { archivePath } from './safe-extract.ts';

const EDGE = 64 * 1024;

/**
 * Compares an archive, entry by entry, with its manifest: the same entries, files of the same
 * sizes, no unsafe name. Proves the stored bytes decode to the tree that was backed up.
 */
export class ManifestCheck {
  readonly #manifest: Map<string, number> | undefined;
  readonly #onName: ((path: string) => void) | undefined;
  /** A differential holds part of its manifest (the rest is its base's): no entry is missing from it. */
  readonly #partial: boolean;
  readonly #seen = new Set<string>();
  readonly #problems: string[] = [];
  entries = 0;
  bytes = 0;

  constructor(manifest: Map<string, number> | undefined, onName?: (path: string) => void, partial = false) {
    this.#manifest = manifest;
    this.#onName = onName;
    this.#partial = partial;
  }

  /** One entry as the archive holds it: its raw name, and its content length (0 for folders and links). */
  see(rawName: string, size: number): void {
    this.entries++;
    this.bytes += size;
    const name = archivePath(rawName);
    if (typeof name !== 'string') {
      this.#problems.push(`entry ${JSON.stringify(rawName)} is unsafe (${name.refused})`);
      return;
    }
    this.#onName?.(name);
    if (!this.#manifest) return;
    this.#seen.add(name);
    const expected = this.#manifest.get(name);
    if (expected === undefined) this.#problems.push(`${name} is not in the manifest`);
    else if (expected >= 0 && expected !== size)
      this.#problems.push(`${name} has ${size} bytes, the manifest says ${expected}`);
  }

  /** Throws when anything differed, or a manifest entry never came. */
  finish(): { entries: number; bytes: number } {
    const problems = this.#problems;
    if (this.#manifest && !this.#partial)
      for (const path of this.#manifest.keys())
        if (!this.#seen.has(path)) problems.push(`${path} is missing from the archive`);
    if (problems.length > 0)
      throw new Error(
        `the archive does not match its manifest: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`,
      );
    return { entries: this.entries, bytes: this.bytes };
  }
}

/** Reads every tar entry through and checks it against the manifest ({@link ManifestCheck}). */
export async function checkTar(
  raw: Readable,
  manifest: Map<string, number> | undefined,
  onName?: (path: string) => void,
  partial = false,
): Promise<{ entries: number; bytes: number }> {
  const extract = tar.extract();
  const check = new ManifestCheck(manifest, onName, partial);
  extract.on('entry', (header, body, next) => {
    let size = 0;
    // The extract reports a failure itself; an entry cut short by it must not crash the process.
    body.on('error', () => undefined);
    body.on('data', (c: unknown) => {
      size += (c as Buffer).length;
    });
    body.on('end', () => {
      check.see(header.name, size);
      next();
    });
    body.resume();
  });
  await pipeline(raw, extract);
  return check.finish();
}

/** Reads a dump through, keeping its first and last 64 KiB for the driver's header and trailer check. */
export async function checkDump(raw: Readable, driver: DatabaseDriverType | undefined): Promise<{ bytes: number }> {
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  let bytes = 0;
  await pipeline(
    raw,
    new Writable({
      write(chunk: Buffer, _e, cb) {
        bytes += chunk.length;
        if (head.length < EDGE) head = Buffer.concat([head, chunk.subarray(0, EDGE - head.length)]);
        tail = Buffer.concat([tail, chunk]);
        if (tail.length > EDGE) tail = tail.subarray(tail.length - EDGE);
        cb();
      },
    }),
  );
  if (bytes === 0) throw new Error('the dump is empty');
  const problem = driver?.checkDump?.(head, tail);
  if (problem) throw new Error(problem);
  return { bytes };
}
