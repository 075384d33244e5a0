import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Agent } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StorageInstance } from '@backplane/plugin-api';
import { startLoopbackBridge } from '../../core/engine/index.ts';
import { httpUrl, send } from './bridge-http.ts';
import { sha256, wrapStorage } from './bridge-storages.ts';
import { filesUnder, localDisk, tempDir } from './helpers.ts';

// The loopback server: its URL, its token, and how it closes (idle keep-alive connections at
// once, requests in flight after they finish or the grace period ends).

describe('restic REST bridge: loopback server', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let storage: StorageInstance;
  before(async () => {
    ({ dir, cleanup } = await tempDir('bp-loopback-'));
    storage = await localDisk(dir);
  });
  after(() => cleanup());

  it('serves the repository under a random 32-byte token on 127.0.0.1, and nothing else', async () => {
    const bridge = await startLoopbackBridge({ storage, prefix: 'repo', appendOnly: false });
    const other = await startLoopbackBridge({ storage, prefix: 'repo', appendOnly: false });
    try {
      const match = /^rest:http:\/\/127\.0\.0\.1:(\d+)\/([A-Za-z0-9_-]{43})\/$/.exec(bridge.url);
      assert.ok(match, bridge.url);
      const token = match[2]!;
      assert.equal(Buffer.from(token, 'base64url').length, 32);
      assert.notEqual(token, /\/([A-Za-z0-9_-]{43})\/$/.exec(other.url)![1], 'a new token per bridge');
      const url = httpUrl(bridge);
      const bytes = randomBytes(1000);
      const id = sha256(bytes);
      assert.equal((await send(url, `/${token}/?create=true`, { method: 'POST' })).status, 200);
      assert.equal((await send(url, `/${token}?create=true`, { method: 'POST' })).status, 200);
      assert.equal((await send(url, `/${token}/data/${id}`, { method: 'POST', body: bytes })).status, 200);
      const back = await send(url, `/${token}/data/${id}`, { headers: { range: 'bytes=10-19' } });
      assert.equal(back.status, 206);
      assert.ok(back.body.equals(bytes.subarray(10, 20)));
      const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
      for (const path of [
        '/',
        `/data/${id}`,
        `/${wrong}/data/${id}`,
        `/${token}x/data/${id}`,
        `/${token.slice(0, 42)}/data/${id}`,
        `/x/${token}/data/${id}`,
        `/${token}/../${token}/data/${id}`,
        `/${token}/%2e%2e/config`,
      ]) {
        assert.equal((await send(url, path)).status, 404, path);
      }
      // The other bridge's token does not open this one.
      assert.equal((await send(url, `${new URL(other.url.slice(5)).pathname}data/${id}`)).status, 404);
    } finally {
      await bridge.close();
      await other.close();
    }
  });

  it('closes idle keep-alive connections at once, and refuses connections afterwards', async () => {
    const bridge = await startLoopbackBridge({ storage, prefix: 'repo', appendOnly: false, closeGraceMs: 30_000 });
    const url = httpUrl(bridge);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const token = url.pathname;
      for (let i = 0; i < 3; i++) await send(url, `${token}config`, { method: 'HEAD', agent });
      assert.ok(Object.values(agent.freeSockets).flat().length > 0, 'the agent kept a connection open');
      const started = Date.now();
      await bridge.close();
      assert.ok(Date.now() - started < 2_000, `close took ${Date.now() - started} ms`);
      await assert.rejects(send(url, `${token}config`), /ECONNREFUSED|ECONNRESET|socket hang up/);
    } finally {
      agent.destroy();
    }
  });

  it('lets a request in flight finish before closing', async () => {
    const slow = wrapStorage(storage, {
      stat: async (key) => {
        await sleep(300);
        return storage.stat(key);
      },
    });
    const bridge = await startLoopbackBridge({
      storage: slow,
      prefix: 'repo',
      appendOnly: false,
      closeGraceMs: 10_000,
    });
    const url = httpUrl(bridge);
    const agent = new Agent({ keepAlive: true });
    try {
      const pending = send(url, `${url.pathname}config`, { method: 'HEAD', agent });
      await sleep(50);
      const closing = bridge.close();
      assert.equal(bridge.close(), closing, 'close() twice is one closing');
      assert.equal((await pending).status, 404);
      await closing;
    } finally {
      agent.destroy();
    }
  });

  it('aborts and cuts requests still running when the grace period ends', async () => {
    let aborted = false;
    const stuck = wrapStorage(storage, {
      stat: (key) => Promise.resolve({ key, size: 10 }),
      get: (_key, _range, options) =>
        new Promise<Readable>((_resolve, reject) => {
          options?.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
    });
    const bridge = await startLoopbackBridge({ storage: stuck, prefix: 'repo', appendOnly: false, closeGraceMs: 200 });
    const url = httpUrl(bridge);
    const pending = send(url, `${url.pathname}config`);
    await sleep(100);
    const started = Date.now();
    await bridge.close();
    assert.ok(Date.now() - started < 3_000);
    await assert.rejects(pending, /socket hang up|ECONNRESET/);
    assert.ok(aborted, 'the storage read was aborted');
  });

  it('breaks the connection when a body fails midway, so the client never sees a clean end', async () => {
    const failing = wrapStorage(storage, {
      stat: (key) => Promise.resolve({ key, size: 1_000_000 }),
      get: () =>
        Promise.resolve(
          new Readable({
            read() {
              this.push(Buffer.alloc(100_000));
              this.destroy(new Error('disk gone'));
            },
          }),
        ),
    });
    const errors: unknown[] = [];
    const bridge = await startLoopbackBridge({
      storage: failing,
      prefix: 'repo',
      appendOnly: false,
      onError: (e) => errors.push(e),
    });
    try {
      const url = httpUrl(bridge);
      await assert.rejects(send(url, `${url.pathname}config`), /aborted|ECONNRESET|socket hang up/);
      assert.equal(errors.length, 1);
    } finally {
      await bridge.close();
    }
  });

  it('stores nothing of an upload whose client goes away midway, and keeps serving', async () => {
    const bridge = await startLoopbackBridge({ storage, prefix: 'cut', appendOnly: false });
    try {
      const url = httpUrl(bridge);
      const bytes = randomBytes(400_000);
      const id = sha256(bytes);
      const socket = connect(Number(url.port), '127.0.0.1');
      await once(socket, 'connect');
      socket.write(
        `POST ${url.pathname}data/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${bytes.length}\r\n\r\n`,
      );
      socket.write(bytes.subarray(0, 200_000));
      await sleep(100);
      socket.destroy();
      // The bridge learns of it asynchronously: a bounded wait for the put to give up.
      // A listing racing the storage's removal of an emptied folder fails (ENOENT): list again.
      const listing = async (): Promise<string[]> => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await filesUnder(dir);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 20) throw err;
            await sleep(10);
          }
        }
      };
      const leftovers = async () => (await listing()).filter((p) => p.startsWith('cut/'));
      for (let i = 0; i < 50 && (await leftovers()).length > 0; i++) await sleep(50);
      assert.deepEqual(await leftovers(), []);
      assert.equal((await send(url, `${url.pathname}data/${id}`, { method: 'HEAD' })).status, 404);
      assert.equal((await send(url, `${url.pathname}data/${id}`, { method: 'POST', body: bytes })).status, 200);
    } finally {
      await bridge.close();
    }
  });

  it('refuses an invalid prefix when starting', async () => {
    await assert.rejects(
      startLoopbackBridge({ storage, prefix: '../elsewhere', appendOnly: false }),
      /invalid repository prefix/,
    );
  });
});
