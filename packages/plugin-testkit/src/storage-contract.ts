import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import type { ObjectInfo, StorageInstance } from '@backplane/plugin-api';

/**
 * The storage conformance suite: every storage type runs it (rclone's fstests and restic's
 * backend suite are the model). A provider's test file calls `runStorageContract` with a
 * function that opens an instance on an empty, writable target.
 *
 * Decisions the contract comments leave open, as this suite checks them:
 * - `list(prefix)` is a plain string prefix: `a/b` lists `a/b/x` and also `a/bc`; `a/b/` only the former.
 *   Keys come back whole, exactly as they were put. Folders are not objects (`stat('a')` is undefined when only `a/x` exists).
 * - A range whose `end` lies past the last byte is clamped to it. A range whose `start` is at or past
 *   the end yields no bytes, or rejects with a ProviderError other than `not_found` (core answers
 *   HTTP 416 itself from `stat`, so it never asks for one).
 * - A stream longer or shorter than `meta.size` rejects with ProviderError kind `permanent`.
 * - A source stream that errors makes `put` reject (with the source's error or a ProviderError).
 * - A failed overwrite leaves the key absent or holding its previous content, never a part.
 * - Keys with `..` (or `.`) segments, absolute keys, and prefixes of that kind are refused with
 *   ProviderError kind `permanent`, even when they would resolve inside the target.
 * - Concurrent puts to one key: the survivor is exactly one of the payloads whose put resolved.
 * - An aborted `meta.signal` makes `put` reject and leaves nothing.
 */
export interface StorageContractOptions {
  /** bytes of the large streaming test; default from env BACKPLANE_TEST_LARGE_MB (default 256) */
  largeBytes?: number;
  /**
   * The provider stages uploads under temporary names, so a killed upload leaves one: it must
   * then offer removeTemporaries and removeStaleTemporaries (otherwise those tests skip).
   */
  stagesUploads?: boolean;
}

export type Opened = {
  instance: StorageInstance;
  cleanup?: () => Promise<void>;
  /**
   * Leaves a temporary object of an upload to `key`, last modified at `modifiedAt`, the way a
   * killed upload would. With it, the suite checks what removeTemporaries and
   * removeStaleTemporaries remove; without it, only what they keep.
   */
  strand?: (key: string, modifiedAt: Date) => Promise<void>;
};

const MiB = 1024 * 1024;
/**
 * How far the resident set may grow over its baseline while the large object streams through.
 * The generator and GC timing alone account for up to ~100 MiB, so the bound sits well above
 * that and well below the default 256 MiB object: a provider that holds the object whole
 * (256 MiB plus that overhead) fails; one that streams passes however the GC happens to run.
 */
export const RSS_GROWTH_LIMIT = 192 * MiB;
/** Listing more than this many objects in a test means the provider lists far more than asked. */
const LIST_LIMIT = 100_000;

function defaultLargeBytes(): number {
  const mb = Number(process.env.BACKPLANE_TEST_LARGE_MB ?? 256);
  if (!Number.isFinite(mb) || mb < 0)
    throw new Error(`BACKPLANE_TEST_LARGE_MB must be a number of MiB (got ${process.env.BACKPLANE_TEST_LARGE_MB})`);
  return Math.round(mb * MiB);
}

// ---- helpers ------------------------------------------------------------------------------

const hex = (bytes = 6) => randomBytes(bytes).toString('hex');

/** A fresh folder-like prefix per test, so tests never see each other's objects. */
const freshPrefix = () => `contract-${hex()}/`;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

async function collect(items: AsyncIterable<ObjectInfo>): Promise<ObjectInfo[]> {
  const out: ObjectInfo[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length > LIST_LIMIT) throw new Error(`list yielded more than ${LIST_LIMIT} objects`);
  }
  return out;
}

/** `key -> size`, sorted by key, so a comparison shows the whole listing on failure. */
async function listing(instance: StorageInstance, prefix: string): Promise<Record<string, number>> {
  const items = await collect(instance.list(prefix));
  const keys = items.map((i) => i.key);
  assert.equal(
    new Set(keys).size,
    keys.length,
    `list(${JSON.stringify(prefix)}) yielded a key twice: ${keys.join(', ')}`,
  );
  return Object.fromEntries(
    items.map((i) => [i.key, i.size] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/** `buf` as a stream of `chunkSize`-byte chunks, yielding to the event loop between them. */
function chunked(buf: Buffer, chunkSize = 64 * 1024): Readable {
  return Readable.from(
    (async function* chunks() {
      for (let offset = 0; offset < buf.length; offset += chunkSize) {
        yield buf.subarray(offset, offset + chunkSize);
        await tick();
      }
    })(),
  );
}

/**
 * A body that yields `first`, then waits for `release()` before yielding `second`: an upload
 * held in progress. `firstPulled` resolves once the provider has taken the first chunk.
 */
function gatedBody(first: Buffer, second: Buffer): { body: Readable; firstPulled: Promise<void>; release: () => void } {
  let pulled!: () => void;
  let release!: () => void;
  const firstPulled = new Promise<void>((resolve) => {
    pulled = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const body = Readable.from(
    (async function* gated() {
      yield first;
      pulled();
      await released;
      yield second;
    })(),
  );
  return { body, firstPulled, release };
}

/** A stream of `chunks` chunks of `size` random bytes, then an error: an upload cut short. */
function failingStream(chunks: number, size: number): Readable {
  return Readable.from(
    (async function* broken() {
      for (let i = 0; i < chunks; i++) {
        yield randomBytes(size);
        await tick();
      }
      throw new Error('source failed mid-stream (contract test)');
    })(),
  );
}

function providerKind(err: unknown): string | undefined {
  // Duck-typed rather than instanceof: a third-party plugin carries its own copy of @backplane/plugin-api.
  if (!(err instanceof Error) || err.name !== 'ProviderError') return undefined;
  const kind = (err as { kind?: unknown }).kind;
  return typeof kind === 'string' ? kind : undefined;
}

async function rejectsWithKind(action: () => Promise<unknown>, kind: string, what: string): Promise<void> {
  let settled: { value: unknown } | undefined;
  try {
    settled = { value: await action() };
  } catch (err) {
    assert.equal(
      providerKind(err),
      kind,
      `${what}: expected a ProviderError of kind "${kind}", got ${String((err as Error)?.stack ?? err)}`,
    );
  }
  assert.equal(settled, undefined, `${what}: expected a rejection, but it resolved`);
}

async function rejects(action: () => Promise<unknown>, what: string): Promise<unknown> {
  try {
    await action();
  } catch (err) {
    return err;
  }
  assert.fail(`${what}: expected a rejection, but it resolved`);
}

/** Every byte value, in several orders, so no byte is special and no alignment hides a bug. */
function allByteValues(): Buffer {
  const up = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const down = Buffer.from(up).reverse();
  const strided = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 167 + 13) % 256));
  return Buffer.concat([up, down, strided, up.subarray(0, 255)]);
}

/**
 * A deterministic pseudo-random stream of `total` bytes in 1 MiB chunks (AES-256-CTR keystream
 * of a fixed seed), hashed as it is produced. Nothing holds more than one chunk.
 */
function largeSource(total: number, onChunk: () => void): { stream: Readable; digest: () => string } {
  const hash = createHash('sha256');
  const cipher = createCipheriv(
    'aes-256-ctr',
    createHash('sha256').update('backplane storage contract').digest(),
    Buffer.alloc(16),
  );
  const zeros = Buffer.alloc(MiB);
  let finished = false;
  const stream = Readable.from(
    (function* generate() {
      for (let sent = 0; sent < total; ) {
        const n = Math.min(MiB, total - sent);
        const chunk = cipher.update(zeros.subarray(0, n));
        hash.update(chunk);
        sent += n;
        onChunk();
        yield chunk;
      }
      finished = true;
    })(),
    { objectMode: false, highWaterMark: MiB },
  );
  return {
    stream,
    digest: () => {
      assert.ok(finished, 'the provider resolved put() before reading the whole stream');
      return hash.digest('hex');
    },
  };
}

// ---- the suite ----------------------------------------------------------------------------

export function runStorageContract(
  label: string,
  open: () => Promise<Opened>,
  options: StorageContractOptions = {},
): void {
  const largeBytes = options.largeBytes ?? defaultLargeBytes();

  describe(label, () => {
    let opened: Opened | undefined;
    const storage = (): StorageInstance => {
      assert.ok(opened, 'open() did not provide an instance');
      return opened.instance;
    };
    const put = (key: string, data: Buffer, withSize = true) =>
      storage().put(key, chunked(data), withSize ? { size: data.length } : {});
    const getBytes = async (key: string, range?: { start: number; end?: number }) =>
      readAll(await storage().get(key, range));

    before(async () => {
      opened = await open();
      assert.ok(opened?.instance, 'open() must resolve to { instance }');
    });
    after(async () => {
      await opened?.instance.close?.();
      await opened?.cleanup?.();
    });

    it('put then get round-trips the bytes and returns the size', async () => {
      const key = `${freshPrefix()}object.bin`;
      const data = randomBytes(300_001);
      assert.deepEqual(await put(key, data), { size: data.length });
      const back = await getBytes(key);
      assert.equal(back.length, data.length);
      assert.ok(back.equals(data), 'get returned other bytes than were put');
    });

    it('put accepts a stream of unknown length (no meta.size)', async () => {
      const key = `${freshPrefix()}unknown-length`;
      const data = randomBytes(200_000 + 17);
      const result = await put(key, data, false);
      assert.equal(result.size, data.length, 'put must report the number of bytes it stored');
      assert.equal((await storage().stat(key))?.size, data.length);
      assert.ok((await getBytes(key)).equals(data));
    });

    it('a stream longer or shorter than meta.size is refused and leaves nothing', async () => {
      const prefix = freshPrefix();
      const data = randomBytes(100_000);
      await rejectsWithKind(
        () => storage().put(`${prefix}longer`, chunked(data), { size: data.length - 1 }),
        'permanent',
        'a stream 1 byte longer than meta.size',
      );
      await rejectsWithKind(
        () => storage().put(`${prefix}shorter`, chunked(data), { size: data.length + 1 }),
        'permanent',
        'a stream 1 byte shorter than meta.size',
      );
      assert.equal(await storage().stat(`${prefix}longer`), undefined);
      assert.equal(await storage().stat(`${prefix}shorter`), undefined);
      assert.deepEqual(await listing(storage(), prefix), {});
      await rejectsWithKind(() => storage().get(`${prefix}longer`), 'not_found', 'get after a refused put');
    });

    it('get honours inclusive byte ranges', async () => {
      const prefix = freshPrefix();
      const key = `${prefix}ranged`;
      const data = randomBytes(10_000);
      await put(key, data);
      assert.ok((await getBytes(key, { start: 0 })).equals(data), 'start 0, no end: the whole object');
      assert.ok((await getBytes(key, { start: 1234 })).equals(data.subarray(1234)), 'start only: to the end');
      assert.ok(
        (await getBytes(key, { start: 100, end: 199 })).equals(data.subarray(100, 200)),
        'start and end are both inclusive',
      );
      assert.ok((await getBytes(key, { start: 0, end: 0 })).equals(data.subarray(0, 1)), 'the first byte');
      assert.ok((await getBytes(key, { start: 4321, end: 4321 })).equals(data.subarray(4321, 4322)), 'a 1-byte range');
      assert.ok((await getBytes(key, { start: 9_999, end: 9_999 })).equals(data.subarray(9_999)), 'the last byte');
      assert.ok(
        (await getBytes(key, { start: 9_990, end: 50_000 })).equals(data.subarray(9_990)),
        'an end past the last byte is clamped',
      );
      await rejectsWithKind(
        () => storage().get(`${prefix}missing`, { start: 10 }),
        'not_found',
        'a range of a missing object',
      );
    });

    it('a range starting at or past the end yields no bytes or rejects (never not_found)', async () => {
      const key = `${freshPrefix()}short`;
      const data = randomBytes(100);
      await put(key, data);
      for (const range of [{ start: 100 }, { start: 5_000 }, { start: 5_000, end: 6_000 }]) {
        let bytes: Buffer | undefined;
        try {
          bytes = await getBytes(key, range);
        } catch (err) {
          const kind = providerKind(err);
          assert.ok(
            kind !== undefined && kind !== 'not_found',
            `range ${JSON.stringify(range)}: a rejection must be a ProviderError other than not_found (the object exists), got ${String(err)}`,
          );
        }
        if (bytes !== undefined) assert.equal(bytes.length, 0, `range ${JSON.stringify(range)} returned bytes`);
      }
    });

    it('get of a missing key rejects with not_found', async () => {
      const prefix = freshPrefix();
      await rejectsWithKind(() => storage().get(`${prefix}nothing-here`), 'not_found', 'get of a missing key');
      await rejectsWithKind(
        () => storage().get(`${prefix}no/such/folder/either`),
        'not_found',
        'get under missing folders',
      );
      await put(`${prefix}folder/child`, randomBytes(10));
      await rejectsWithKind(
        () => storage().get(`${prefix}folder`),
        'not_found',
        'get of a "folder" (a prefix of another key)',
      );
    });

    it('stat reports size and time of an object, undefined for a missing one', async () => {
      const prefix = freshPrefix();
      const key = `${prefix}dir/stat-me`;
      await put(key, randomBytes(4_097));
      const info = await storage().stat(key);
      assert.ok(info, 'stat of an existing object');
      assert.equal(info.key, key);
      assert.equal(info.size, 4_097);
      if (info.modifiedAt !== undefined) {
        assert.ok(
          info.modifiedAt instanceof Date && !Number.isNaN(info.modifiedAt.getTime()),
          'modifiedAt, when given, is a valid Date',
        );
      }
      assert.equal(await storage().stat(`${prefix}dir/missing`), undefined);
      assert.equal(await storage().stat(`${prefix}never/was/here`), undefined);
      assert.equal(await storage().stat(`${prefix}dir`), undefined, 'a folder is not an object');
    });

    it('list yields the objects under a prefix, nested ones included, with sizes', async () => {
      const prefix = freshPrefix();
      const other = freshPrefix();
      const objects: Record<string, number> = {
        [`${prefix}top`]: 11,
        [`${prefix}dir/a`]: 22,
        [`${prefix}dir/sub/b`]: 33,
        [`${prefix}dir/sub/deeper/c`]: 0,
        [`${prefix}dirt`]: 44,
      };
      for (const [key, size] of Object.entries(objects)) await put(key, randomBytes(size));
      await put(`${other}unrelated`, randomBytes(5));

      assert.deepEqual(await listing(storage(), prefix), objects, 'the whole prefix, keys in full, exact sizes');
      assert.deepEqual(
        await listing(storage(), `${prefix}dir/`),
        {
          [`${prefix}dir/a`]: 22,
          [`${prefix}dir/sub/b`]: 33,
          [`${prefix}dir/sub/deeper/c`]: 0,
        },
        'a folder prefix: not its sibling "dirt"',
      );
      assert.deepEqual(
        await listing(storage(), `${prefix}dir`),
        {
          [`${prefix}dir/a`]: 22,
          [`${prefix}dir/sub/b`]: 33,
          [`${prefix}dir/sub/deeper/c`]: 0,
          [`${prefix}dirt`]: 44,
        },
        'a prefix is a string prefix: "dir" matches "dirt" too',
      );
      assert.deepEqual(await listing(storage(), `${prefix}dir/sub/deeper/`), { [`${prefix}dir/sub/deeper/c`]: 0 });
      assert.deepEqual(await listing(storage(), `${prefix}nothing/`), {}, 'a prefix with no objects lists nothing');
      assert.deepEqual(await listing(storage(), `${other}`), { [`${other}unrelated`]: 5 });
      const all = await listing(storage(), '');
      for (const key of [...Object.keys(objects), `${other}unrelated`])
        assert.equal(all[key], objects[key] ?? 5, `list('') includes ${key}`);
      for (const item of await collect(storage().list(prefix))) {
        if (item.modifiedAt !== undefined)
          assert.ok(
            item.modifiedAt instanceof Date && !Number.isNaN(item.modifiedAt.getTime()),
            `modifiedAt of ${item.key}`,
          );
      }
    });

    it('delete removes an object, is idempotent, and leaves its neighbours', async () => {
      const prefix = freshPrefix();
      await put(`${prefix}dir/gone`, randomBytes(100));
      await put(`${prefix}dir/stays`, randomBytes(200));
      await storage().delete(`${prefix}dir/gone`);
      assert.equal(await storage().stat(`${prefix}dir/gone`), undefined);
      await rejectsWithKind(() => storage().get(`${prefix}dir/gone`), 'not_found', 'get after delete');
      assert.deepEqual(await listing(storage(), prefix), { [`${prefix}dir/stays`]: 200 });
      await storage().delete(`${prefix}dir/gone`);
      await storage().delete(`${prefix}never/existed`);
      await storage().delete(`${prefix}dir/stays`);
      assert.deepEqual(await listing(storage(), prefix), {});
      await put(`${prefix}dir/again`, randomBytes(3));
      assert.deepEqual(
        await listing(storage(), prefix),
        { [`${prefix}dir/again`]: 3 },
        'a key can be written again after its folder emptied',
      );
    });

    it('overwriting a key replaces the object whole', async () => {
      const prefix = freshPrefix();
      const key = `${prefix}over`;
      await put(key, randomBytes(50_000));
      const smaller = randomBytes(1_000);
      assert.deepEqual(await put(key, smaller), { size: 1_000 });
      assert.ok((await getBytes(key)).equals(smaller), 'a smaller overwrite leaves no tail of the old object');
      assert.equal((await storage().stat(key))?.size, 1_000);
      const larger = randomBytes(70_000);
      await put(key, larger, false);
      assert.ok((await getBytes(key)).equals(larger));
      assert.deepEqual(await listing(storage(), prefix), { [key]: 70_000 });
    });

    it('concurrent puts to different keys all land intact', async () => {
      const prefix = freshPrefix();
      const payloads = Array.from({ length: 12 }, (_, i) => randomBytes(30_000 + i * 1_001));
      const results = await Promise.all(
        payloads.map((data, i) => storage().put(`${prefix}k${i}`, chunked(data, 4_096), { size: data.length })),
      );
      assert.deepEqual(
        results.map((r) => r.size),
        payloads.map((p) => p.length),
      );
      for (const [i, data] of payloads.entries())
        assert.ok((await getBytes(`${prefix}k${i}`)).equals(data), `k${i} intact`);
      assert.equal(Object.keys(await listing(storage(), prefix)).length, payloads.length);
    });

    it('concurrent puts to one key leave exactly one complete payload', async () => {
      const prefix = freshPrefix();
      const key = `${prefix}contended`;
      // Distinct sizes and contents: a mix or a truncation cannot equal any single payload.
      const payloads = Array.from({ length: 8 }, (_, i) => randomBytes(40_000 + i * 3_001));
      const settled = await Promise.allSettled(
        payloads.map((data) => storage().put(key, chunked(data, 4_096), { size: data.length })),
      );
      const won = payloads.filter((_, i) => settled[i]?.status === 'fulfilled');
      assert.ok(
        won.length > 0,
        `every concurrent put failed: ${settled.map((s) => (s.status === 'rejected' ? String(s.reason) : 'ok')).join('; ')}`,
      );
      const final = await getBytes(key);
      assert.ok(
        won.some((p) => p.equals(final)),
        `the object (${final.length} bytes) is none of the payloads whose put resolved`,
      );
      assert.deepEqual(
        await listing(storage(), prefix),
        { [key]: final.length },
        'one object, no leftovers from the losers',
      );
    });

    it('an empty object round-trips', async () => {
      const prefix = freshPrefix();
      assert.deepEqual(await put(`${prefix}empty-sized`, Buffer.alloc(0)), { size: 0 });
      assert.deepEqual(await storage().put(`${prefix}empty-unsized`, Readable.from([]), {}), { size: 0 });
      for (const key of [`${prefix}empty-sized`, `${prefix}empty-unsized`]) {
        assert.equal((await getBytes(key)).length, 0);
        assert.equal((await storage().stat(key))?.size, 0, `stat of ${key}`);
      }
      assert.deepEqual(await listing(storage(), prefix), {
        [`${prefix}empty-sized`]: 0,
        [`${prefix}empty-unsized`]: 0,
      });
    });

    it('binary data with every byte value survives, whatever the chunking', async () => {
      const prefix = freshPrefix();
      const data = allByteValues();
      for (const chunkSize of [1, 7, 256, data.length]) {
        const key = `${prefix}bytes-${chunkSize}`;
        await storage().put(key, chunked(data, chunkSize), { size: data.length });
        assert.ok((await getBytes(key)).equals(data), `chunks of ${chunkSize} bytes`);
      }
      const text = `${prefix}from-strings`;
      assert.deepEqual(await storage().put(text, Readable.from(['héllo ', 'wörld']), {}), {
        size: Buffer.byteLength('héllo wörld'),
      });
      assert.equal((await getBytes(text)).toString('utf8'), 'héllo wörld');
    });

    it('keys with spaces, unicode and punctuation round-trip unchanged', async () => {
      const prefix = freshPrefix();
      const keys = [
        `${prefix}with space/file name.tar.zst`,
        `${prefix}ünïcödé/文件/🎉 party.bin`,
        `${prefix}punct/a+b=c&d,e;f@g~h(1)[2]{3}'q'#%20.x`,
        `${prefix}.hidden/.dotfile`,
        `${prefix}trailing.dots.../leading-dash -x`,
      ];
      for (const [i, key] of keys.entries()) await put(key, Buffer.from(`payload ${i}`));
      for (const [i, key] of keys.entries()) {
        assert.equal((await getBytes(key)).toString(), `payload ${i}`, key);
        assert.equal((await storage().stat(key))?.key, key);
      }
      assert.deepEqual(
        Object.keys(await listing(storage(), prefix)).sort(),
        [...keys].sort(),
        'list returns the keys exactly as put',
      );
      assert.deepEqual(Object.keys(await listing(storage(), `${prefix}ünïcödé/`)), [keys[1]]);
    });

    it('keys that try to leave the target are refused and write nothing', async () => {
      const prefix = freshPrefix();
      const name = `escape-${hex()}`;
      const absolute = `/tmp/${name}`;
      const bad = [
        `../${name}`,
        `a/../../${name}`,
        `${prefix}sub/../${name}`,
        `${prefix}../${name}`,
        `${prefix}./${name}`,
        absolute,
        `/etc/${name}`,
        '..',
        '',
      ];
      try {
        for (const key of bad) {
          await rejectsWithKind(
            () => storage().put(key, Readable.from([Buffer.from('x')]), { size: 1 }),
            'permanent',
            `put ${JSON.stringify(key)}`,
          );
          await rejectsWithKind(() => storage().get(key), 'permanent', `get ${JSON.stringify(key)}`);
          await rejectsWithKind(() => storage().stat(key), 'permanent', `stat ${JSON.stringify(key)}`);
          await rejectsWithKind(() => storage().delete(key), 'permanent', `delete ${JSON.stringify(key)}`);
        }
        for (const p of ['../', `${prefix}../`, '/etc/', `a/../../`]) {
          await rejectsWithKind(async () => collect(storage().list(p)), 'permanent', `list ${JSON.stringify(p)}`);
        }
        // Nothing under the names a lenient provider would have normalised the keys to...
        for (const key of [name, `a/${name}`, `${prefix}${name}`, `tmp/${name}`, `etc/${name}`]) {
          assert.equal(await storage().stat(key), undefined, `nothing was written as ${key}`);
        }
        assert.deepEqual(await listing(storage(), prefix), {});
        // ...and, for providers backed by this machine's file system, nothing at the absolute paths.
        assert.equal(existsSync(absolute), false, `${absolute} was written`);
        assert.equal(existsSync(`/etc/${name}`), false, `/etc/${name} was written`);
      } finally {
        rmSync(absolute, { force: true, recursive: true });
        rmSync(`/etc/${name}`, { force: true, recursive: true });
      }
    });

    it('an upload that fails mid-stream rejects and leaves nothing under the key', async () => {
      const prefix = freshPrefix();
      await rejects(() => storage().put(`${prefix}broken`, failingStream(4, 16_384)), 'a put whose stream errors');
      await rejects(
        () => storage().put(`${prefix}broken-sized`, failingStream(4, 16_384), { size: 1_000_000 }),
        'a sized put whose stream errors',
      );
      await rejects(
        () => storage().put(`${prefix}nested/deeper/broken`, failingStream(1, 10)),
        'a put into new folders whose stream errors',
      );
      for (const key of [`${prefix}broken`, `${prefix}broken-sized`, `${prefix}nested/deeper/broken`]) {
        assert.equal(await storage().stat(key), undefined, `${key} exists after a failed put`);
        await rejectsWithKind(() => storage().get(key), 'not_found', `get ${key} after a failed put`);
      }
      assert.deepEqual(await listing(storage(), prefix), {}, 'no partial or temporary object is listed');
    });

    it('a failed overwrite leaves the previous object or nothing, never a part', async () => {
      const prefix = freshPrefix();
      const key = `${prefix}precious`;
      const old = randomBytes(60_000);
      await put(key, old);
      await rejects(() => storage().put(key, failingStream(2, 16_384)), 'an overwrite whose stream errors');
      await rejectsWithKind(
        () => storage().put(key, chunked(randomBytes(10)), { size: 11 }),
        'permanent',
        'an overwrite of the wrong size',
      );
      const info = await storage().stat(key);
      if (info !== undefined) {
        assert.equal(info.size, old.length);
        assert.ok((await getBytes(key)).equals(old), 'the previous content, whole');
      }
      assert.deepEqual(Object.keys(await listing(storage(), prefix)), info ? [key] : []);
    });

    it('an upload in progress is not visible until put resolves', async () => {
      const prefix = freshPrefix();
      const key = `${prefix}in-flight`;
      const first = randomBytes(32_768);
      const second = randomBytes(1_000);
      const { body, firstPulled, release } = gatedBody(first, second);
      const uploading = storage().put(key, body, { size: first.length + second.length });
      const early = await Promise.race([
        firstPulled.then(() => 'pulled' as const),
        uploading.then(
          () => 'resolved' as const,
          () => 'rejected' as const,
        ),
      ]);
      assert.equal(early, 'pulled', 'put settled before it read the whole stream');
      assert.equal(await storage().stat(key), undefined, 'stat sees an unfinished upload');
      assert.deepEqual(await listing(storage(), prefix), {}, 'list sees an unfinished upload');
      await rejectsWithKind(() => storage().get(key), 'not_found', 'get of an unfinished upload');
      release();
      assert.deepEqual(await uploading, { size: first.length + second.length });
      assert.ok((await getBytes(key)).equals(Buffer.concat([first, second])));
    });

    it('an aborted put rejects and leaves nothing', async () => {
      const prefix = freshPrefix();
      const controller = new AbortController();
      let produced = 0;
      // Bounded: a provider that ignores the signal reaches the end and resolves, failing the test.
      const body = Readable.from(
        (async function* endless() {
          for (let i = 0; i < 256; i++) {
            if (i === 4) controller.abort(new Error('cancelled by the contract test'));
            produced++;
            yield randomBytes(16_384);
            await tick();
          }
        })(),
      );
      await rejects(
        () => storage().put(`${prefix}aborted`, body, { signal: controller.signal }),
        'a put whose signal aborted',
      );
      assert.ok(produced < 256, 'the provider read the whole stream despite the abort');
      assert.equal(await storage().stat(`${prefix}aborted`), undefined);
      assert.deepEqual(await listing(storage(), prefix), {});
      const already = AbortSignal.abort(new Error('aborted before the put'));
      await rejects(
        () => storage().put(`${prefix}pre-aborted`, chunked(randomBytes(10)), { signal: already }),
        'a put with an aborted signal',
      );
      assert.equal(await storage().stat(`${prefix}pre-aborted`), undefined);
    });

    it(`a large stream (${(largeBytes / MiB).toFixed(0)} MiB) round-trips with the same SHA-256 in bounded memory`, async (t) => {
      const key = `${freshPrefix()}large.bin`;
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sample = () => {
        const rss = process.memoryUsage().rss;
        if (rss > peak) peak = rss;
      };
      const sampler = setInterval(sample, 25);
      try {
        const source = largeSource(largeBytes, sample);
        assert.deepEqual(await storage().put(key, source.stream, { size: largeBytes }), { size: largeBytes });
        const sent = source.digest();
        assert.equal((await storage().stat(key))?.size, largeBytes);
        const hash = createHash('sha256');
        let received = 0;
        for await (const chunk of (await storage().get(key)) as AsyncIterable<Buffer>) {
          hash.update(chunk);
          received += chunk.length;
          sample();
        }
        assert.equal(received, largeBytes);
        assert.equal(hash.digest('hex'), sent, 'SHA-256 of the bytes read back differs from the bytes written');
        // A middle slice, to check ranges on an object larger than any single buffer.
        const mid = Math.floor(largeBytes / 2);
        if (largeBytes > 0)
          assert.equal(
            (await getBytes(key, { start: mid, end: Math.min(mid + 999, largeBytes - 1) })).length,
            Math.min(1000, largeBytes - mid),
          );
      } finally {
        clearInterval(sampler);
        sample();
      }
      const growth = peak - baseline;
      t.diagnostic(
        `resident memory grew by ${(growth / MiB).toFixed(1)} MiB over ${(largeBytes / MiB).toFixed(0)} MiB streamed`,
      );
      assert.ok(
        growth <= RSS_GROWTH_LIMIT,
        `resident memory grew by ${(growth / MiB).toFixed(1)} MiB while streaming (limit ${RSS_GROWTH_LIMIT / MiB} MiB): the provider buffers the object`,
      );
      await storage().delete(key);
    });

    it('removeTemporaries, when the provider has it, removes the temporaries of its key and nothing else', async (t) => {
      const instance = storage();
      if (!instance.removeTemporaries) {
        assert.ok(
          !options.stagesUploads,
          'the provider stages uploads under temporary names but has no removeTemporaries',
        );
        t.skip('the provider has no removeTemporaries');
        return;
      }
      const prefix = freshPrefix();
      // Two names alike in their first 32 characters: a temporary name shows no more of them.
      const key = `${prefix}${'n'.repeat(40)}-one.tar.zst.age`;
      const twin = `${prefix}${'n'.repeat(40)}-two.tar.zst.age`;
      const other = `${prefix}sub/other.bin`;
      for (const k of [key, twin, other]) await put(k, randomBytes(100));
      const before = await listing(instance, prefix);
      assert.equal(await instance.removeTemporaries(key), 0, 'a key without temporaries');
      assert.equal(await instance.removeTemporaries(`${prefix}never-written`), 0, 'a key that does not exist');
      assert.deepEqual(await listing(instance, prefix), before, 'removeTemporaries removed an object');
      const strand = opened?.strand;
      if (!strand) return;
      const now = new Date();
      await strand(key, now);
      await strand(key, now);
      await strand(twin, now);
      await strand(`${prefix}missing/gone.bin`, now);
      assert.equal(await instance.removeTemporaries(key), 2, 'both temporaries of the key');
      assert.equal(await instance.removeTemporaries(key), 0, 'idempotent');
      assert.deepEqual(await listing(instance, prefix), before, 'the objects themselves stay');
      assert.equal(
        await instance.removeTemporaries(`${prefix}missing/gone.bin`),
        1,
        'a temporary whose upload never completed',
      );
      assert.equal(await instance.removeTemporaries(twin), 1, "the twin's temporary was left alone");
      for (const k of [key, twin, other]) await instance.delete(k);
    });

    it('removeStaleTemporaries, when the provider has it, removes old temporaries but not fresh ones or those of kept keys', async (t) => {
      const instance = storage();
      if (!instance.removeStaleTemporaries) {
        assert.ok(
          !options.stagesUploads,
          'the provider stages uploads under temporary names but has no removeStaleTemporaries',
        );
        t.skip('the provider has no removeStaleTemporaries');
        return;
      }
      const prefix = freshPrefix();
      const dayAgo = new Date(Date.now() - 24 * 3600_000);
      // An upload in progress: its temporary is fresh, so a sweep must leave it to complete.
      const key = `${prefix}in-progress.bin`;
      const first = randomBytes(512 * 1024);
      const { body, firstPulled, release } = gatedBody(first, first);
      const uploading = instance.put(key, body, { size: 2 * first.length });
      await firstPulled;
      await instance.removeStaleTemporaries(dayAgo, []);
      release();
      assert.deepEqual(await uploading, { size: 2 * first.length }, 'the sweep broke an upload in progress');
      assert.ok((await getBytes(key)).equals(Buffer.concat([first, first])));
      await instance.delete(key);
      const strand = opened?.strand;
      if (!strand || !instance.removeTemporaries) return;
      const twoDaysAgo = new Date(Date.now() - 48 * 3600_000);
      await strand(`${prefix}old.bin`, twoDaysAgo);
      await strand(`${prefix}deep/er/old.bin`, twoDaysAgo);
      await strand(`${prefix}kept.bin`, twoDaysAgo);
      await strand(`${prefix}fresh.bin`, new Date());
      assert.equal(
        await instance.removeStaleTemporaries(dayAgo, [`${prefix}kept.bin`]),
        2,
        'the two old temporaries of keys not kept',
      );
      assert.equal(await instance.removeStaleTemporaries(dayAgo, [`${prefix}kept.bin`]), 0);
      assert.equal(await instance.removeTemporaries(`${prefix}kept.bin`), 1, "a kept key's temporary stays");
      assert.equal(await instance.removeTemporaries(`${prefix}fresh.bin`), 1, 'a fresh temporary stays');
      assert.deepEqual(await listing(instance, prefix), {});
    });

    it('testConnection succeeds and leaves no object behind', async () => {
      const before = await listing(storage(), '');
      const result = await storage().testConnection();
      assert.equal(result.success, true, `testConnection: ${result.message}`);
      assert.equal(typeof result.message, 'string');
      assert.deepEqual(await listing(storage(), ''), before, 'testConnection left objects behind');
    });

    it('usage, when the provider reports it, is a set of sane byte counts', async (t) => {
      const instance = storage();
      if (!instance.usage) {
        t.skip('the provider reports no usage');
        return;
      }
      const usage = await instance.usage();
      for (const [name, value] of Object.entries(usage)) {
        if (value !== undefined)
          assert.ok(Number.isSafeInteger(value) && value >= 0, `${name} is a byte count (got ${String(value)})`);
      }
      if (usage.totalBytes !== undefined && usage.freeBytes !== undefined)
        assert.ok(usage.freeBytes <= usage.totalBytes, 'free <= total');
      if (usage.totalBytes !== undefined && usage.usedBytes !== undefined)
        assert.ok(usage.usedBytes <= usage.totalBytes, 'used <= total');
    });
  });
}
