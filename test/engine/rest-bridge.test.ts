import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ProviderError, type StorageInstance } from '@backplane/plugin-api';
import {
  handleResticRequest,
  RESTIC_REST_V1,
  RESTIC_REST_V2,
  type ResticBridgeOptions,
} from '../../core/engine/index.ts';
import { call, endIgnoring, rangeIgnoring, recording, sha256, wrapStorage } from './bridge-storages.ts';
import { filesUnder, localDisk, tempDir } from './helpers.ts';

// The REST bridge's handler on the real local-disk storage, without restic: every answer the
// protocol (and rest-server's behaviour) asks for, and what the storage is and is not handed.

const PREFIX = 'repositories/task-3';
const ID = (seed: string) => sha256(seed);

describe('restic REST bridge: requests', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let storage: StorageInstance;
  let opts: ResticBridgeOptions;
  let n = 0;
  /** A fresh repository folder for each test that writes. */
  const repo = (extra: Partial<ResticBridgeOptions> = {}): ResticBridgeOptions => ({
    ...opts,
    prefix: `${PREFIX}-${++n}`,
    ...extra,
  });
  const upload = async (o: ResticBridgeOptions, type: string, bytes: Buffer, id = sha256(bytes)) => {
    const answer = await call(o, 'POST', `/${type}/${id}`, { body: bytes });
    return { answer, id };
  };

  before(async () => {
    ({ dir, cleanup } = await tempDir('bp-rest-bridge-'));
    storage = await localDisk(dir);
    opts = { storage, prefix: PREFIX, appendOnly: false };
  });
  after(() => cleanup());

  it('creates a repository with POST /?create=true only', async () => {
    assert.equal((await call(opts, 'POST', '/', { query: { create: 'true' } })).status, 200);
    assert.equal((await call(opts, 'POST', '/')).status, 400);
    const get = await call(opts, 'GET', '/');
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
  });

  it("stores each type in restic's default layout, and HEAD and GET read it back", async () => {
    const o = repo();
    const config = randomBytes(200);
    assert.equal((await call(o, 'POST', '/config', { body: config })).status, 200);
    const written: string[] = [];
    for (const type of ['data', 'keys', 'locks', 'snapshots', 'index']) {
      const bytes = randomBytes(1000 + written.length);
      const { answer, id } = await upload(o, type, bytes);
      assert.equal(answer.status, 200, `POST /${type}/`);
      written.push(type === 'data' ? `data/${id.slice(0, 2)}/${id}` : `${type}/${id}`);
      const head = await call(o, 'HEAD', `/${type}/${id}`);
      assert.equal(head.status, 200);
      assert.equal(head.headers['content-length'], String(bytes.length));
      assert.equal(head.body.length, 0);
      const get = await call(o, 'GET', `/${type}/${id}`);
      assert.equal(get.status, 200);
      assert.ok(get.body.equals(bytes));
    }
    assert.deepEqual(await filesUnder(join(dir, o.prefix)), ['config', ...written].sort());
    const head = await call(o, 'HEAD', '/config');
    assert.equal(head.headers['content-length'], '200');
    assert.ok((await call(o, 'GET', '/config')).body.equals(config));
  });

  it('refuses to replace a file (403) and keeps the first content', async () => {
    const o = repo();
    const bytes = randomBytes(5000);
    const { id } = await upload(o, 'data', bytes);
    assert.equal((await upload(o, 'data', bytes)).answer.status, 403);
    assert.equal((await call(o, 'POST', '/config', { body: 'one' })).status, 200);
    assert.equal((await call(o, 'POST', '/config', { body: 'two' })).status, 403);
    assert.ok((await call(o, 'GET', `/data/${id}`)).body.equals(bytes));
    assert.equal((await call(o, 'GET', '/config')).body.toString(), 'one');
  });

  it('refuses an upload whose SHA-256 is not its name (400) and stores nothing, not even a temporary', async () => {
    const o = repo();
    for (const type of ['data', 'keys', 'locks', 'snapshots', 'index']) {
      const { answer } = await upload(o, type, randomBytes(300_000), ID(`other-${type}`));
      assert.equal(answer.status, 400, type);
      assert.equal((await call(o, 'HEAD', `/${type}/${ID(`other-${type}`)}`)).status, 404);
    }
    assert.deepEqual(await filesUnder(dir).then((f) => f.filter((p) => p.startsWith(o.prefix))), []);
  });

  it('never hands the storage the last byte of a mismatching upload', async () => {
    // A storage that commits as soon as `size` bytes arrived, without waiting for the end.
    const eager = wrapStorage(storage, {
      put: async (key, body, meta) => {
        const chunks: Buffer[] = [];
        let got = 0;
        for await (const chunk of body as AsyncIterable<Buffer>) {
          chunks.push(chunk);
          got += chunk.length;
          if (got === meta?.size) break;
        }
        return storage.put(key, Readable.from([Buffer.concat(chunks)]), meta);
      },
    });
    const o = { ...repo(), storage: eager };
    // All bytes arrive at once, the end of the request a while later: a check that let every
    // byte through would have the storage commit before the check's verdict at the end.
    const body = new Readable({ read() {} });
    for (let i = 0; i < 3; i++) body.push(randomBytes(1000));
    const ending = setTimeout(() => body.push(null), 200);
    const id = ID('not this');
    const answer = await handleResticRequest(
      { method: 'POST', path: `/data/${id}`, query: {}, headers: { 'content-length': '3000' }, body },
      o,
    );
    clearTimeout(ending);
    assert.equal(answer.status, 400);
    assert.equal(await storage.stat(`${o.prefix}/data/${id.slice(0, 2)}/${id}`), undefined);
  });

  it('lists v2 (names and sizes) or v1 (names), skipping what is not a file of the layout', async () => {
    const o = repo();
    const packs = [randomBytes(10), randomBytes(20), randomBytes(30)];
    const ids = [];
    for (const p of packs) ids.push((await upload(o, 'data', p)).id);
    const root = join(dir, o.prefix);
    // Strays: a pack outside its subfolder, one in the wrong subfolder, a non-id name, an upload in progress.
    await mkdir(join(root, 'data', 'zz'), { recursive: true });
    await writeFile(join(root, 'data', ID('flat')), 'x');
    await writeFile(join(root, 'data', 'zz', ID('wrong')), 'x');
    await writeFile(join(root, 'data', 'zz', 'notes.txt'), 'x');
    await writeFile(join(root, 'data', ids[0]!.slice(0, 2), `.${ID('up')}.0123456789abcdef.partial`), 'x');
    const v2 = await call(o, 'GET', '/data/', { headers: { accept: RESTIC_REST_V2 } });
    assert.equal(v2.status, 200);
    assert.equal(v2.headers['content-type'], RESTIC_REST_V2);
    const listed = (JSON.parse(v2.body.toString()) as { name: string; size: number }[]).sort((a, b) => a.size - b.size);
    assert.deepEqual(
      listed,
      ids.map((name, i) => ({ name, size: packs[i]!.length })),
    );
    const v1 = await call(o, 'GET', '/data/');
    assert.equal(v1.headers['content-type'], RESTIC_REST_V1);
    assert.deepEqual((JSON.parse(v1.body.toString()) as string[]).sort(), [...ids].sort());
    const empty = await call(o, 'GET', '/snapshots/', { headers: { accept: RESTIC_REST_V2 } });
    assert.deepEqual(JSON.parse(empty.body.toString()), []);
    assert.equal((await call(o, 'POST', '/data/')).status, 405);
  });

  it('lists in pieces without holding the whole listing', async () => {
    // 3000 entries of about 80 bytes: more than one 64 KiB piece of JSON.
    const many = wrapStorage(storage, {
      async *list(prefix) {
        for (let i = 0; i < 3000; i++) yield { key: `${prefix}${ID(String(i))}`, size: i };
      },
    });
    const answer = await handleResticRequest(
      { method: 'GET', path: '/keys/', query: {}, headers: { accept: RESTIC_REST_V2 }, body: Readable.from([]) },
      { storage: many, prefix: PREFIX, appendOnly: false },
    );
    assert.ok(answer.body instanceof Readable);
    const pieces = await answer.body.toArray();
    assert.ok(pieces.length > 1, `${pieces.length} piece(s)`);
    assert.equal((JSON.parse(Buffer.concat(pieces).toString()) as unknown[]).length, 3000);
  });

  describe('ranges', () => {
    const bytes = randomBytes(256 * 1024 + 17);
    let id: string;
    before(async () => {
      id = (await upload(opts, 'data', bytes)).id;
    });
    const cases: [string, number, number][] = [
      ['bytes=0-', 0, bytes.length - 1],
      ['bytes=100-199', 100, 199],
      ['bytes=200000-', 200000, bytes.length - 1],
      ['bytes=-4096', bytes.length - 4096, bytes.length - 1],
      ['bytes=-999999999', 0, bytes.length - 1],
      ['bytes=262000-999999', 262000, bytes.length - 1],
      [`bytes=${bytes.length - 1}-${bytes.length - 1}`, bytes.length - 1, bytes.length - 1],
    ];
    const kinds: [string, (s: StorageInstance) => StorageInstance][] = [
      ['a storage that honours ranges', (s) => s],
      ['a storage that ignores ranges', rangeIgnoring],
      ['a storage that ignores the end of a range', endIgnoring],
    ];
    for (const [name, wrap] of kinds) {
      it(`serves 206 slices from ${name}`, async () => {
        // A new wrapper each time: the bridge learns per storage instance whether it honours ranges.
        const o = { ...opts, storage: wrap(storage) };
        for (const [range, start, end] of cases) {
          const answer = await call(o, 'GET', `/data/${id}`, { headers: { range } });
          assert.equal(answer.status, 206, range);
          assert.equal(answer.headers['content-range'], `bytes ${start}-${end}/${bytes.length}`, range);
          assert.equal(answer.headers['content-length'], String(end - start + 1), range);
          assert.ok(answer.body.equals(bytes.subarray(start, end + 1)), `${range}: the bytes of the slice`);
        }
      });
    }

    it('answers 416 for a range past the end, and the whole object for a header it cannot use', async () => {
      for (const range of [`bytes=${bytes.length}-`, 'bytes=-0', `bytes=${bytes.length + 5}-${bytes.length + 9}`]) {
        const answer = await call(opts, 'GET', `/data/${id}`, { headers: { range } });
        assert.equal(answer.status, 416, range);
        assert.equal(answer.headers['content-range'], `bytes */${bytes.length}`);
      }
      for (const range of [
        'bytes=5-2',
        'items=0-1',
        'bytes=0-1,5-6',
        'bytes=-',
        'bytes=x-1',
        'bytes=99999999999999999999-',
      ]) {
        const answer = await call(opts, 'GET', `/data/${id}`, { headers: { range } });
        assert.equal(answer.status, 200, range);
        assert.ok(answer.body.equals(bytes), range);
      }
    });

    it('serves an empty file whole: restic 0.14 asks bytes=0- for every read', async () => {
      const o = repo();
      assert.equal((await call(o, 'POST', '/config', { body: '' })).status, 200);
      const answer = await call(o, 'GET', '/config', { headers: { range: 'bytes=0-' } });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.length, 0);
    });
  });

  describe('deleting', () => {
    it('deletes files of every type, and a missing one without error', async () => {
      const o = repo();
      for (const type of ['data', 'keys', 'locks', 'snapshots', 'index']) {
        const { id } = await upload(o, type, randomBytes(64));
        assert.equal((await call(o, 'DELETE', `/${type}/${id}`)).status, 200);
        assert.equal((await call(o, 'HEAD', `/${type}/${id}`)).status, 404);
        assert.equal((await call(o, 'DELETE', `/${type}/${id}`)).status, 200, 'idempotent');
      }
      await call(o, 'POST', '/config', { body: 'c' });
      assert.equal((await call(o, 'DELETE', '/config')).status, 200);
      assert.equal((await call(o, 'HEAD', '/config')).status, 404);
    });

    it('append-only: refuses to delete anything but locks (403)', async () => {
      const o = repo();
      const ids: Record<string, string> = {};
      for (const type of ['data', 'keys', 'locks', 'snapshots', 'index'])
        ids[type] = (await upload(o, type, randomBytes(64))).id;
      await call(o, 'POST', '/config', { body: 'c' });
      const appendOnly = { ...o, appendOnly: true };
      for (const type of ['data', 'keys', 'snapshots', 'index']) {
        assert.equal((await call(appendOnly, 'DELETE', `/${type}/${ids[type]}`)).status, 403, type);
        assert.equal((await call(appendOnly, 'HEAD', `/${type}/${ids[type]}`)).status, 200, `${type} is still there`);
      }
      assert.equal((await call(appendOnly, 'DELETE', '/config')).status, 403);
      assert.equal((await call(appendOnly, 'DELETE', `/locks/${ids.locks}`)).status, 200);
      assert.equal((await call(appendOnly, 'HEAD', `/locks/${ids.locks}`)).status, 404);
      // Adding still works.
      assert.equal((await upload(appendOnly, 'snapshots', randomBytes(64))).answer.status, 200);
    });
  });

  describe('paths', () => {
    const id = ID('x');
    const notFound = [
      '',
      '//',
      '/config/',
      '//config',
      '/../config',
      '/./config',
      '/data',
      '/data//',
      `/data/${id.slice(0, 2)}/${id}`,
      `/data/../../../etc/${id}`,
      `/data/${id}/`,
      `/data/${id}/..`,
      '/DATA/',
      '/tmp/',
      `/snapshot/${id}`,
      '/%2e%2e/config',
      `/data%2f${id}`,
      '/config%00',
    ];
    const badName = [
      '/data/..',
      '/keys/.',
      `/data/${id.toUpperCase()}`,
      `/data/${id.slice(1)}`,
      `/data/${id}0`,
      '/data/%2e%2e',
      '/locks/..%2f..%2fconfig',
      `/index/${id.slice(0, 63)}g`,
      `/keys/..%2f..%2f${id}`,
      `/data/${id}?x`,
    ];
    for (const method of ['GET', 'HEAD', 'POST', 'DELETE']) {
      it(`${method}: no path outside the grammar reaches the storage`, async () => {
        const keys: string[] = [];
        const o = { ...opts, storage: recording(storage, keys) };
        for (const path of notFound)
          assert.equal((await call(o, method, path, { body: 'x' })).status, 404, `${method} ${JSON.stringify(path)}`);
        for (const path of badName)
          assert.equal((await call(o, method, path, { body: 'x' })).status, 400, `${method} ${JSON.stringify(path)}`);
        assert.deepEqual(keys, []);
      });
    }

    it('hands the storage only keys inside the prefix', async () => {
      const keys: string[] = [];
      const o = { ...repo(), storage: recording(storage, keys) };
      await upload(o, 'data', randomBytes(10));
      await call(o, 'GET', '/data/');
      await call(o, 'GET', '/config');
      await call(o, 'DELETE', `/keys/${id}`);
      assert.ok(keys.length >= 5);
      for (const key of keys) assert.ok(key.startsWith(`${o.prefix}/`), key);
    });

    it('refuses a prefix that is not a plain folder key (500) before touching the storage', async () => {
      const keys: string[] = [];
      for (const prefix of ['../x', '/abs', 'a//b', 'a/../b', 'a/./b', 'a\\b']) {
        const answer = await call({ ...opts, prefix, storage: recording(storage, keys) }, 'GET', '/config');
        assert.equal(answer.status, 500, prefix);
      }
      assert.deepEqual(keys, []);
      // '' is the storage's root, and trailing slashes are dropped.
      const rootKeys: string[] = [];
      await call({ ...opts, prefix: '', storage: recording(storage, rootKeys) }, 'HEAD', '/config');
      await call({ ...opts, prefix: 'a/b//', storage: recording(storage, rootKeys) }, 'HEAD', '/config');
      assert.deepEqual(rootKeys, ['config', 'a/b/config']);
    });
  });

  describe('storage failures', () => {
    it('maps not_found to 404 and any other failure to 500 naming its kind only', async () => {
      const failing = (kind: 'not_found' | 'transient' | 'auth') =>
        wrapStorage(storage, {
          stat: () => Promise.reject(new ProviderError(kind, 'secret detail /srv/backups')),
          list: () => ({
            [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new ProviderError(kind, 'secret')) }),
          }),
          delete: () => Promise.reject(new ProviderError(kind, 'secret')),
        });
      const errors: unknown[] = [];
      const o = (kind: 'not_found' | 'transient' | 'auth') => ({
        ...opts,
        storage: failing(kind),
        onError: (e: unknown) => errors.push(e),
      });
      assert.equal((await call(o('not_found'), 'GET', '/config')).status, 404);
      for (const kind of ['transient', 'auth'] as const) {
        for (const [method, path] of [
          ['GET', '/config'],
          ['HEAD', `/data/${ID('a')}`],
          ['GET', '/data/'],
          ['DELETE', `/locks/${ID('a')}`],
          ['POST', `/snapshots/${ID('a')}`],
        ] as const) {
          const answer = await call(o(kind), method, path);
          assert.equal(answer.status, 500, `${method} ${path}`);
          assert.equal(answer.body.toString(), `Internal Server Error: storage failed (${kind})\n`);
        }
      }
      assert.equal(errors.length, 10);
    });

    it('answers 404 when a file disappears between its stat and its read', async () => {
      const gone = wrapStorage(storage, {
        stat: (key) => Promise.resolve({ key, size: 10 }),
        get: (key) => Promise.reject(new ProviderError('not_found', `no ${key}`)),
      });
      assert.equal((await call({ ...opts, storage: gone }, 'GET', `/data/${ID('z')}`)).status, 404);
    });

    it('fails a read whose storage stream ends short instead of answering a clean short body', async () => {
      const short = wrapStorage(storage, {
        stat: (key) => Promise.resolve({ key, size: 100 }),
        get: () => Promise.resolve(Readable.from([Buffer.alloc(60)])),
      });
      await assert.rejects(call({ ...opts, storage: short }, 'GET', `/data/${ID('z')}`), /60 of 100 bytes/);
    });
  });
});
