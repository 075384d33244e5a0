import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { addAbortSignal, PassThrough, Readable, type Writable } from 'node:stream';
import { ProviderError, type ObjectInfo, type ProviderDeps, type StorageInstance, type TestResult } from '@backplane/plugin-api';
import { MAX_REASON, notInstalled, rcloneFailure, trimReason, redact, isNotFound } from './errors.ts';
import { buildArgv, buildEnv, type Operation, type Profile } from './invocation.ts';
import { checkKey, checkPrefix, isInternalKey, isTemporaryKey, PROBE_PREFIX, temporariesOf, tempKeyFor } from './keys.ts';
import { RcloneChild, runRclone, type ChildExit, type RunResult, type SpawnOptions } from './rclone-process.ts';
import { resolveRemote, type RemoteDefinition } from './remote-definition.ts';

/**
 * A storage target on an rclone remote, one rclone child process per operation:
 * put = `rcat` (to a temporary name, then `moveto`), get = `cat --offset --count`,
 * list = `lsjson -R`, stat = `lsjson --stat`, delete = `deletefile`, usage = `about --json`.
 */

/**
 * Backends whose uploads are atomic by protocol: an S3/GCS/Azure/B2 object appears only once its
 * (multipart) upload is completed, so `rcat` straight to the key cannot leave a part, and a
 * rename would be a server-side copy of the whole object. Everything else (local, sftp, ftp,
 * webdav, smb... measured: a killed `rcat` leaves a truncated file on local and sftp) uploads to
 * a temporary name and is moved into place.
 */
const ATOMIC_UPLOAD = new Set(['s3', 'gcs', 'azureblob', 'b2']);

export type UploadStrategy = 'direct' | 'temp-then-move';

export function uploadStrategy(backend: string): UploadStrategy {
  return ATOMIC_UPLOAD.has(backend) ? 'direct' : 'temp-then-move';
}

/** Short commands (stat, delete, about) get this long before they count as hung. */
const COMMAND_DEADLINE_MS = 120_000;
/** testConnection's whole write/read/delete probe (under core's 30 s test timeout, so rclone's reason wins). */
export const PROBE_DEADLINE_MS = 25_000;
/** Bytes queued for rclone's stdin before put waits for it to drain (bounds memory, keeps the pipe busy). */
const WRITE_BUDGET = 4 * 1024 * 1024;
/** How long rclone gets to exit (and say why) after closing its stdin on us. */
const STDIN_CLOSED_GRACE_MS = 5_000;
/** Clean-up of a temporary object after a failed upload. */
const CLEANUP_DEADLINE_MS = 30_000;

export interface RcloneStorageOptions {
  binary: string;
  /** The environment the child's is derived from (ProviderDeps.env, else process.env). */
  env: Record<string, string | undefined>;
  definition: RemoteDefinition;
  log?: ProviderDeps['log'];
}

interface Ready {
  env: Record<string, string>;
  secrets: string[];
}

interface Call {
  profile: Profile;
  signal?: AbortSignal;
}

const STANDARD: Call = { profile: 'standard' };

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** Resolves when `stdin` can take more, or can take nothing any more (closed: the child is gone). */
function drained(stdin: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stdin.off('drain', done);
      stdin.off('close', done);
      resolve();
    };
    stdin.on('drain', done);
    stdin.on('close', done);
    if (stdin.destroyed) done();
  });
}

/** Waits up to `ms` for the child to exit by itself. */
async function exitedWithin(child: RcloneChild, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([child.exited, new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); })]);
  clearTimeout(timer);
}

function checkRange(range: { start: number; end?: number } | undefined): { start: number; end?: number } {
  const start = range?.start ?? 0;
  const end = range?.end;
  if (!Number.isSafeInteger(start) || start < 0) throw new ProviderError('permanent', `rclone: invalid range start ${String(start)}`);
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start)) throw new ProviderError('permanent', `rclone: invalid range end ${String(end)}`);
  return { start, end };
}

interface LsjsonEntry {
  Path?: string;
  Size?: number;
  ModTime?: string;
  IsDir?: boolean;
}

function toDate(text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export class RcloneStorage implements StorageInstance {
  readonly #binary: string;
  readonly #baseEnv: Record<string, string | undefined>;
  readonly #def: RemoteDefinition;
  readonly #log: ProviderDeps['log'] | undefined;
  #ready: Promise<Ready> | undefined;

  constructor(options: RcloneStorageOptions) {
    this.#binary = options.binary;
    this.#baseEnv = options.env;
    this.#def = options.definition;
    this.#log = options.log;
  }

  get backend(): string {
    return this.#def.backend;
  }

  /** The child environment (password options obscured once per instance) and the values to redact. */
  #prepare(): Promise<Ready> {
    this.#ready ??= resolveRemote(this.#def, this.#binary, this.#baseEnv).then(({ spec, secrets }) => ({ env: buildEnv(this.#baseEnv, spec), secrets }));
    return this.#ready;
  }

  #spawn(ready: Ready, operation: Operation, call: Call, options: SpawnOptions = {}): RcloneChild {
    return new RcloneChild({ binary: this.#binary, argv: buildArgv(operation, this.#def.root, call.profile), env: ready.env }, { signal: call.signal, ...options });
  }

  /** Turns a finished child into an error (or undefined when it succeeded). */
  #failure(action: string, exit: ChildExit, ready: Ready, call: Call, deadlineMs?: number): unknown {
    if (exit.spawnError) return notInstalled(this.#binary, exit.spawnError.code === 'ENOENT' ? 'not found' : exit.spawnError.message);
    if (exit.killedBy === 'abort') return abortReason(call.signal);
    if (exit.killedBy === 'deadline') return new ProviderError('transient', `rclone ${action}: no answer within ${Math.round((deadlineMs ?? 0) / 1000)} s`);
    if (exit.code === 0) return undefined;
    // Killed by someone else (the OOM killer, an operator): nothing wrong with the request itself.
    if (exit.signal) return new ProviderError('transient', `rclone ${action}: rclone was killed by ${exit.signal}`);
    return rcloneFailure(action, exit, ready.secrets);
  }

  async #run(ready: Ready, operation: Operation, call: Call, options: { deadlineMs?: number; maxStdout?: number } = {}): Promise<RunResult> {
    return runRclone({ binary: this.#binary, argv: buildArgv(operation, this.#def.root, call.profile), env: ready.env }, { signal: call.signal, ...options });
  }

  // ---- put ------------------------------------------------------------------------------

  async put(key: string, body: Readable, meta: { size?: number; contentType?: string; signal?: AbortSignal } = {}): Promise<{ size: number }> {
    return this.#put(key, body, meta.size, { profile: 'standard', signal: meta.signal });
  }

  async #put(key: string, body: Readable, size: number | undefined, call: Call): Promise<{ size: number }> {
    try {
      checkKey(key);
      if (size !== undefined && (!Number.isSafeInteger(size) || size < 0)) throw new ProviderError('permanent', `rclone: invalid size ${String(size)}`);
      call.signal?.throwIfAborted();
    } catch (err) {
      body.destroy();
      throw err;
    }
    const ready = await this.#prepare().catch((err: unknown) => {
      body.destroy();
      throw err;
    });
    if (uploadStrategy(this.#def.backend) === 'direct') return { size: await this.#upload(ready, key, body, size, call, false) };
    const temp = tempKeyFor(key);
    const count = await this.#upload(ready, temp, body, size, call, true);
    // Once the bytes are all up, the move is not aborted: a half-done move could lose the previous object.
    const moved = await this.#run(ready, { op: 'moveto', from: temp, to: key }, { profile: call.profile });
    const failure = this.#failure('moveto', moved, ready, call);
    if (failure) {
      await this.#deleteQuietly(ready, temp, call.profile);
      throw failure;
    }
    return { size: count };
  }

  /**
   * Streams `body` into `rclone rcat`. The child's stdin is closed (EOF, which rclone takes as
   * "complete") only after the whole stream arrived with the announced size; on any failure the
   * child is killed first and stdin closed after it is gone, so a cut-short stream never
   * completes an upload.
   */
  async #upload(ready: Ready, key: string, body: Readable, size: number | undefined, call: Call, isTemp: boolean): Promise<number> {
    const child = this.#spawn(ready, { op: 'rcat', path: key, ...(size === undefined ? {} : { size }) }, call, { stdin: 'pipe', stdout: 'ignore' });
    if (call.signal) addAbortSignal(call.signal, body);
    let count = 0;
    try {
      if (child.pid === undefined) throw new ProviderError('unsupported', 'rclone could not be started');
      const stdin = child.stdin;
      for await (const chunk of body as AsyncIterable<Buffer | string>) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        count += bytes.length;
        if (size !== undefined && count > size) throw new ProviderError('permanent', `rclone: the stream is longer than its announced size of ${size} bytes`);
        if (child.exit) break;
        // Up to WRITE_BUDGET may wait in the pipe's queue: rclone never idles between chunks.
        if (!stdin.write(bytes) && stdin.writableLength > WRITE_BUDGET) await drained(stdin);
        // A closed stdin means rclone closed its end: it is exiting; wait (briefly) for its reason.
        if (stdin.destroyed && !child.exit) await exitedWithin(child, STDIN_CLOSED_GRACE_MS);
        if (child.exit || stdin.destroyed) break;
      }
      if (child.exit || stdin.destroyed) throw new ProviderError('transient', 'rclone rcat ended before the stream did');
      if (size !== undefined && count !== size) throw new ProviderError('permanent', `rclone: the stream is ${count} bytes, but its size was given as ${size}`);
      call.signal?.throwIfAborted();
      stdin.end();
      const exit = await child.exited;
      const failure = this.#failure('rcat', exit, ready, call);
      if (failure) throw failure;
      return count;
    } catch (err) {
      const ownExit = child.exit && !child.exit.killedBy ? child.exit : undefined;
      const exit = await child.terminate();
      body.destroy();
      if (exit.spawnError) throw this.#failure('rcat', exit, ready, call);
      if (isTemp) await this.#deleteQuietly(ready, key, call.profile);
      if (call.signal?.aborted) throw abortReason(call.signal);
      if (err instanceof ProviderError && err.kind === 'permanent' && /announced size|size was given/.test(err.message)) throw err;
      // rclone gave up on its own (auth, quota, network): its reason beats our EPIPE or early-end.
      if (ownExit) throw this.#failure('rcat', ownExit, ready, call) ?? err;
      throw err;
    }
  }

  async #deleteQuietly(ready: Ready, key: string, profile: Profile): Promise<void> {
    const result = await this.#run(ready, { op: 'deletefile', path: key }, { profile }, { deadlineMs: CLEANUP_DEADLINE_MS });
    if (result.code !== 0 && !isNotFound(result)) {
      this.#log?.warn(`rclone ${this.#def.backend}: could not remove temporary object ${key}: ${trimReason(redact(result.stderr, ready.secrets), 300)}`);
    }
  }

  // ---- get ------------------------------------------------------------------------------

  async get(key: string, range?: { start: number; end?: number }): Promise<Readable> {
    return this.#get(key, range, STANDARD);
  }

  async #get(key: string, range: { start: number; end?: number } | undefined, call: Call): Promise<Readable> {
    checkKey(key);
    const { start, end } = checkRange(range);
    const ready = await this.#prepare();
    // `cat` of a folder would print every file in it, and of a missing path nothing at all:
    // ask first, so that only an existing object is read.
    const info = await this.#stat(ready, key, call);
    if (!info) throw new ProviderError('not_found', `rclone: no object ${JSON.stringify(key)}`);
    const known = info.size >= 0;
    if (known && start >= info.size) return Readable.from([]);
    const last = known ? Math.min(end ?? info.size - 1, info.size - 1) : end;
    const expected = last === undefined ? undefined : last - start + 1;
    const child = this.#spawn(ready, { op: 'cat', path: key, offset: start, ...(end === undefined ? {} : { count: expected }) }, call, { stdout: 'pipe' });
    const out = new PassThrough();
    let received = 0;
    if (child.pid !== undefined) {
      child.stdout.on('data', (chunk: Buffer) => { received += chunk.length; });
      child.stdout.pipe(out, { end: false });
    }
    // The stream ends only once rclone has exited cleanly with every byte: a failure midway
    // (or a short read) destroys it with an error instead of a silent, truncated end.
    void child.exited.then((exit) => {
      if (out.destroyed) return;
      const failure = this.#failure('cat', exit, ready, call);
      if (failure) out.destroy(failure as Error);
      else if (expected !== undefined && received !== expected) out.destroy(new ProviderError('transient', `rclone cat: read ${received} of ${expected} bytes of ${JSON.stringify(key)}`));
      else out.end();
    });
    out.on('close', () => {
      if (!child.exit) void child.terminate();
    });
    return out;
  }

  // ---- list / stat ----------------------------------------------------------------------

  list(prefix: string): AsyncIterable<ObjectInfo> {
    return this.#list(prefix);
  }

  /**
   * Every file below `folder` (or directly in it), internal names included, as `lsjson` reports
   * them: `name` is the path relative to `folder`. A folder that does not exist holds nothing.
   */
  async *#files(ready: Ready, folder: string, recursive: boolean): AsyncGenerator<ObjectInfo & { name: string }> {
    const child = this.#spawn(ready, { op: 'list', path: folder, recursive }, STANDARD, { stdout: 'pipe' });
    try {
      if (child.pid !== undefined) {
        const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
        for await (const line of lines) {
          const text = line.trim().replace(/,$/, '');
          if (!text.startsWith('{')) continue;
          const entry = JSON.parse(text) as LsjsonEntry;
          if (entry.IsDir || typeof entry.Path !== 'string') continue;
          const modifiedAt = toDate(entry.ModTime);
          yield { name: entry.Path, key: `${folder}${entry.Path}`, size: typeof entry.Size === 'number' ? entry.Size : -1, ...(modifiedAt ? { modifiedAt } : {}) };
        }
      }
      const exit = await child.exited;
      if (exit.code !== 0 && !exit.spawnError && !exit.killedBy && isNotFound(exit)) return;
      const failure = this.#failure('lsjson', exit, ready, STANDARD);
      if (failure) throw failure;
    } finally {
      if (!child.exit) await child.terminate();
    }
  }

  async *#list(prefix: string): AsyncGenerator<ObjectInfo> {
    const { folder } = checkPrefix(prefix);
    const ready = await this.#prepare();
    // rclone lists a *file* given in place of a folder as that one file: `a/b/` when `a/b` is
    // an object would come back as `a/b/b`. Such a listing is exactly one entry named like the
    // folder; that entry is held back until a second entry (a real folder) or a stat settles it.
    const folderName = folder.replace(/\/$/, '').split('/').pop() ?? '';
    let held: ObjectInfo | undefined;
    let entries = 0;
    for await (const { name, ...info } of this.#files(ready, folder, true)) {
      entries++;
      const wanted = info.key.startsWith(prefix) && !isInternalKey(info.key);
      if (entries === 1 && folder !== '' && name === folderName) {
        held = wanted ? info : undefined;
        continue;
      }
      if (held) {
        yield held;
        held = undefined;
      }
      if (wanted) yield info;
    }
    if (held) {
      const self = await this.#run(ready, { op: 'stat', path: folder }, STANDARD, { deadlineMs: COMMAND_DEADLINE_MS });
      if (self.code !== 0 && !self.spawnError && !self.killedBy && isNotFound(self)) return;
      const statFailure = this.#failure('lsjson', self, ready, STANDARD, COMMAND_DEADLINE_MS);
      if (statFailure) throw statFailure;
      const text = self.stdout.toString('utf8').trim();
      const isFolder = text !== '' && (JSON.parse(text) as LsjsonEntry).IsDir === true;
      if (isFolder) yield held;
    }
  }

  async stat(key: string): Promise<ObjectInfo | undefined> {
    checkKey(key);
    return this.#stat(await this.#prepare(), key, STANDARD);
  }

  async #stat(ready: Ready, key: string, call: Call): Promise<ObjectInfo | undefined> {
    const result = await this.#run(ready, { op: 'stat', path: key }, call, { deadlineMs: COMMAND_DEADLINE_MS });
    if (result.code !== 0 && !result.spawnError && !result.killedBy && isNotFound(result)) return undefined;
    const failure = this.#failure('lsjson', result, ready, call, COMMAND_DEADLINE_MS);
    if (failure) throw failure;
    const text = result.stdout.toString('utf8').trim();
    if (text === '') return undefined;
    const entry = JSON.parse(text) as LsjsonEntry;
    if (entry.IsDir) return undefined;
    const modifiedAt = toDate(entry.ModTime);
    return { key, size: typeof entry.Size === 'number' ? entry.Size : -1, ...(modifiedAt ? { modifiedAt } : {}) };
  }

  // ---- delete / usage -------------------------------------------------------------------

  async delete(key: string): Promise<void> {
    return this.#delete(key, STANDARD);
  }

  async #delete(key: string, call: Call): Promise<void> {
    checkKey(key);
    await this.#deleteFile(await this.#prepare(), key, call);
  }

  /** Deletes one file of the remote, internal names included (the key is checked by the caller). */
  async #deleteFile(ready: Ready, key: string, call: Call): Promise<void> {
    const result = await this.#run(ready, { op: 'deletefile', path: key }, call, { deadlineMs: COMMAND_DEADLINE_MS });
    // Idempotent: a missing object (or a missing folder on the way to it) is already deleted.
    if (result.code !== 0 && !result.spawnError && !result.killedBy && isNotFound(result)) return;
    const failure = this.#failure('deletefile', result, ready, call, COMMAND_DEADLINE_MS);
    if (failure) throw failure;
  }

  // ---- temporaries ----------------------------------------------------------------------
  // A master killed mid-upload leaves `rcat`'s temporary object (rcat even completes it when its
  // stdin closes with the dead parent). Backends uploading straight to the key have none.

  async removeTemporaries(key: string): Promise<number> {
    checkKey(key);
    if (uploadStrategy(this.#def.backend) === 'direct') return 0;
    const ready = await this.#prepare();
    const { folder, matches } = temporariesOf(key);
    const found: string[] = [];
    for await (const file of this.#files(ready, folder, false)) if (matches(file.name)) found.push(file.key);
    for (const temp of found) await this.#deleteFile(ready, temp, STANDARD);
    return found.length;
  }

  async removeStaleTemporaries(olderThan: Date, keep: Iterable<string> = []): Promise<number> {
    if (uploadStrategy(this.#def.backend) === 'direct') return 0;
    const kept = [...keep].map((key) => temporariesOf(key));
    const ready = await this.#prepare();
    const stale: string[] = [];
    for await (const file of this.#files(ready, '', true)) {
      if (!isTemporaryKey(file.key) || file.modifiedAt === undefined || file.modifiedAt >= olderThan) continue;
      const slash = file.key.lastIndexOf('/');
      const folder = file.key.slice(0, slash + 1);
      const name = file.key.slice(slash + 1);
      if (kept.some((k) => k.folder === folder && k.matches(name))) continue;
      stale.push(file.key);
    }
    for (const temp of stale) await this.#deleteFile(ready, temp, STANDARD);
    return stale.length;
  }

  async usage(): Promise<{ usedBytes?: number; totalBytes?: number; freeBytes?: number }> {
    const ready = await this.#prepare();
    const result = await this.#run(ready, { op: 'about', path: '' }, STANDARD, { deadlineMs: COMMAND_DEADLINE_MS });
    if (result.code !== 0 && /doesn't support about|not supported|unsupported/i.test(result.stderr)) {
      throw new ProviderError('unsupported', `rclone ${this.#def.backend}: the backend does not report its capacity`);
    }
    const failure = this.#failure('about', result, ready, STANDARD, COMMAND_DEADLINE_MS);
    if (failure) throw failure;
    const about = JSON.parse(result.stdout.toString('utf8') || '{}') as { total?: number; used?: number; free?: number };
    const count = (n: unknown) => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined);
    const out: { usedBytes?: number; totalBytes?: number; freeBytes?: number } = {};
    const used = count(about.used);
    const total = count(about.total);
    const free = count(about.free);
    if (used !== undefined) out.usedBytes = used;
    if (total !== undefined) out.totalBytes = total;
    if (free !== undefined) out.freeBytes = free;
    return out;
  }

  // ---- testConnection -------------------------------------------------------------------

  /**
   * Writes a small probe object through the same path a backup takes (temporary name, move),
   * reads it back, compares, deletes it; short timeouts, bounded by PROBE_DEADLINE_MS overall.
   */
  async testConnection(): Promise<TestResult> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new ProviderError('transient', `rclone: no answer within ${PROBE_DEADLINE_MS / 1000} s`)), PROBE_DEADLINE_MS);
    const call: Call = { profile: 'probe', signal: controller.signal };
    const key = `${PROBE_PREFIX}${randomBytes(8).toString('hex')}`;
    const payload = randomBytes(64);
    let written = false;
    try {
      await this.#put(key, Readable.from([payload]), payload.length, call);
      written = true;
      const stream = await this.#get(key, undefined, call);
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        length += chunk.length;
        if (length > 4096) break;
        chunks.push(chunk);
      }
      if (!Buffer.concat(chunks).equals(payload)) throw new ProviderError('permanent', 'rclone: the probe object read back differs from what was written');
      await this.#delete(key, call);
      written = false;
      const where = this.#def.root === '' ? 'its root' : JSON.stringify(this.#def.root);
      return { success: true, message: `rclone ${this.#def.backend}: wrote, read back and deleted a probe object in ${where}` };
    } catch (err) {
      const ready = await this.#prepare().catch(() => undefined);
      if (written && ready) await this.#deleteQuietly(ready, key, 'probe').catch(() => undefined);
      const message = err instanceof Error ? err.message : String(err);
      return { success: false, message: trimReason(redact(message, ready?.secrets ?? this.#def.secretValues), MAX_REASON) };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The instance of any rclone type when no usable rclone is installed: every operation is `unsupported`. */
export class UnavailableStorage implements StorageInstance {
  readonly #binary: string;
  readonly #reason: string;

  constructor(binary: string, reason: string) {
    this.#binary = binary;
    this.#reason = reason;
  }

  #error(): ProviderError {
    return notInstalled(this.#binary, this.#reason);
  }

  async put(_key: string, body: Readable): Promise<{ size: number }> {
    body.destroy();
    throw this.#error();
  }

  async get(): Promise<Readable> {
    throw this.#error();
  }

  list(): AsyncIterable<ObjectInfo> {
    const error = () => this.#error();
    return {
      [Symbol.asyncIterator]() {
        return { next: () => Promise.reject(error()) };
      },
    };
  }

  async stat(): Promise<ObjectInfo | undefined> {
    throw this.#error();
  }

  async delete(): Promise<void> {
    throw this.#error();
  }

  async usage(): Promise<{ usedBytes?: number; totalBytes?: number; freeBytes?: number }> {
    throw this.#error();
  }

  async testConnection(): Promise<TestResult> {
    return { success: false, message: this.#error().message };
  }
}
