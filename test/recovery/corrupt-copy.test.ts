import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';
import { flipByte } from '../helpers/flip-byte.ts';

/**
 * Integrity of reads (issue 11, items 1 and 2): a copy whose stored bytes differ from the
 * record never downloads as a complete file, is marked corrupt, and every reader (download,
 * restore, verification, replication) moves on to a healthy copy when one exists.
 */

async function settled(app: FastifyInstance): Promise<void> {
  const c = app.diContainer.cradle;
  await Promise.all([c.restores.idle(), c.verifications.idle(), c.replications.idle()]);
}

async function read(app: FastifyInstance, token: string, url: string): Promise<any> {
  await settled(app);
  const res = await call(app, 'GET', url, { token });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

interface Fetched {
  status: number;
  contentLength: number;
  body: Buffer;
  complete: boolean;
  error: string;
  json?: any;
}

/** A real HTTP GET over a socket; `complete` is false when the body ended short of its Content-Length. */
function fetchOver(base: string, path: string, token: string): Promise<Fetched> {
  return new Promise((resolve) => {
    const req = httpRequest(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      let error = '';
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('aborted', () => {
        error ||= 'aborted';
      });
      res.on('error', (e) => {
        error ||= e.message;
      });
      res.on('close', () => {
        const body = Buffer.concat(chunks);
        const contentLength = Number(res.headers['content-length'] ?? -1);
        let json: any;
        if (String(res.headers['content-type']).startsWith('application/json'))
          try {
            json = JSON.parse(body.toString());
          } catch {
            /* not JSON */
          }
        resolve({
          status: res.statusCode ?? 0,
          contentLength,
          body,
          complete: res.complete && !error && body.length === contentLength,
          error,
          json,
        });
      });
    });
    req.on('error', (e) =>
      resolve({ status: 0, contentLength: -1, body: Buffer.alloc(0), complete: false, error: e.message }),
    );
    req.end();
  });
}

function curlExit(url: string, token: string, out: string): Promise<number> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '--fail', '-o', out, '-H', `Authorization: Bearer ${token}`, url], (err) =>
      resolve(err ? Number((err as { code?: number }).code ?? -1) : 0),
    );
  });
}

const curlPath = await new Promise<string>((resolve) =>
  execFile('which', ['curl'], (err, stdout) => resolve(err ? '' : stdout.trim())),
);

async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

async function copies(
  app: FastifyInstance,
  token: string,
  id: number,
): Promise<Array<{ storageTargetName: string; status: string; error: string; corruptAt: string | null }>> {
  return (await read(app, token, `/api/backup/records/${id}`)).storageUploadResults;
}

test('a corrupt artifact never downloads whole: the transfer is cut before its last byte, the copy is marked, and then refused with a code', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  // Incompressible, so the artifact spans many chunks and the reply is well under way when the check fails.
  await writeFile(join(src, 'big.bin'), randomBytes(2 * 1024 * 1024));
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'one-copy',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const backup = await runAndWait(app, admin, task.id);
  assert.equal(backup.status, 'success', backup.errorMessage);
  const base = await listening(app);
  const url = `/api/backup/records/${backup.id}/download`;

  // Intact: the whole file, byte for byte, with the holding back of the last chunk.
  const good = await fetchOver(base, url, admin);
  assert.equal(good.status, 200);
  assert.equal(good.complete, true, good.error);
  assert.equal(sha256(good.body), backup.checksum);
  const scratch = await tempDir(t);
  if (curlPath) assert.equal(await curlExit(`${base}${url}`, admin, join(scratch, 'good')), 0);

  await flipByte(join(disk.dir, backup.storagePath), Math.floor(backup.fileSize / 2));
  const cut = await fetchOver(base, url, admin);
  assert.equal(cut.status, 200, 'the headers went out before the check could fail');
  assert.equal(cut.contentLength, backup.fileSize);
  assert.equal(cut.complete, false, 'the client sees a truncated transfer');
  assert.ok(cut.body.length < backup.fileSize, `received ${cut.body.length} of ${backup.fileSize} bytes`);

  const [copy] = await copies(app, admin, backup.id);
  assert.equal(copy!.status, 'corrupt');
  assert.match(copy!.error, /integrity check failed: SHA-256/);
  assert.ok(copy!.corruptAt);

  // No intact copy is left: refused up front with a stable code instead of another cut transfer.
  const refused = await fetchOver(base, url, admin);
  assert.equal(refused.status, 409);
  assert.equal(refused.json?.code, 'BACKUP_ARTIFACT_CORRUPT');
  if (curlPath)
    assert.equal(await curlExit(`${base}${url}`, admin, join(scratch, 'refused')), 22, 'curl --fail: an HTTP error');

  // Slices are served unchecked (a range cannot be checked against the whole-file SHA-256), but
  // never from a copy already known corrupt.
  const slice = await call(app, 'GET', url, { token: admin, headers: { range: 'bytes=0-99' } });
  assert.equal(slice.status, 409, 'a copy known corrupt is not served in slices either');
});

test('curl reports the cut transfer of a corrupt artifact as a partial file (exit 18)', {
  skip: curlPath ? false : 'curl is not installed',
}, async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'big.bin'), randomBytes(2 * 1024 * 1024));
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'curl',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const backup = await runAndWait(app, admin, task.id);
  await flipByte(join(disk.dir, backup.storagePath), backup.fileSize - 10);
  const base = await listening(app);
  const scratch = await tempDir(t);
  assert.equal(await curlExit(`${base}/api/backup/records/${backup.id}/download`, admin, join(scratch, 'cut')), 18);
});

/** A file task with a primary copy on "first" and a replica on "second". */
async function twoCopies(t: TestContext) {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'big.bin'), randomBytes(1024 * 1024));
  await writeFile(join(src, 'keep.txt'), 'original');
  const first = await diskTarget(t, app, admin, 'first');
  const second = await diskTarget(t, app, admin, 'second');
  const task = await createTask(app, admin, {
    name: 'two',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [first.id],
    replicationTargetIds: [second.id],
  });
  /** A fresh record whose copy on "first" has one flipped byte (and on "second" too when asked). */
  const corruptRecord = async (both = false) => {
    const backup = await runAndWait(app, admin, task.id);
    assert.equal(backup.status, 'success', backup.errorMessage);
    await settled(app);
    assert.deepEqual(
      (await copies(app, admin, backup.id)).map((c) => [c.storageTargetName, c.status]),
      [
        ['first', 'success'],
        ['second', 'success'],
      ],
    );
    await flipByte(join(first.dir, backup.storagePath), Math.floor(backup.fileSize / 2));
    if (both) await flipByte(join(second.dir, backup.storagePath), Math.floor(backup.fileSize / 3));
    return backup;
  };
  return { app, admin, src, first, second, corruptRecord };
}

test('with the first copy corrupt, download, restore, quick and deep verify and replication use the healthy replica; the bad copy is marked', async (t) => {
  const { app, admin, src, corruptRecord } = await twoCopies(t);
  const base = await listening(app);

  // Download: the corrupt copy's transfer is cut and the copy marked; the next request serves the replica.
  const d = await corruptRecord();
  const cut = await fetchOver(base, `/api/backup/records/${d.id}/download`, admin);
  assert.equal(cut.complete, false);
  const whole = await fetchOver(base, `/api/backup/records/${d.id}/download`, admin);
  assert.equal(whole.status, 200);
  assert.equal(whole.complete, true, whole.error);
  assert.equal(sha256(whole.body), d.checksum);
  assert.deepEqual(
    (await copies(app, admin, d.id)).map((c) => [c.storageTargetName, c.status]),
    [
      ['first', 'corrupt'],
      ['second', 'success'],
    ],
  );
  assert.equal(
    (await read(app, admin, `/api/backup/records/${d.id}`)).storageTargetName,
    'second',
    'the record shows the intact copy',
  );

  // Restore: the corrupt copy is found while it streams into the staging folder (nothing moved),
  // the replica is read once and moved into place.
  const r = await corruptRecord();
  await writeFile(join(src, 'keep.txt'), 'changed');
  const restore = await call(app, 'POST', `/api/backup/records/${r.id}/restore`, { token: admin, body: {} });
  assert.equal(restore.status, 200, restore.body);
  const restored = await read(app, admin, `/api/restore/records/${restore.json.data.id}`);
  assert.equal(restored.status, 'success', restored.errorMessage);
  assert.equal(restored.sourceTargetName, 'second');
  assert.match(restored.logContent, /the copy on "first" is corrupt \(SHA-256 [0-9a-f]{64} differs/);
  assert.equal(restored.logContent.match(/reading from "second"/g)?.length, 1, 'one read of the healthy copy');
  assert.equal(await readFile(join(src, 'keep.txt'), 'utf8'), 'original');
  const marked = (await copies(app, admin, r.id))[0]!;
  assert.equal(marked.status, 'corrupt');
  assert.match(marked.error, /integrity check failed/);

  // Quick and deep verification: the artifact verifies from the replica, and the record says a copy is corrupt.
  for (const mode of ['quick', 'deep'] as const) {
    const v = await corruptRecord();
    const res = await call(app, 'POST', `/api/backup/records/${v.id}/verify`, { token: admin, body: { mode } });
    assert.equal(res.status, 200, res.body);
    const verified = await read(app, admin, `/api/verify/records/${res.json.data.id}`);
    assert.equal(verified.status, 'partial', `${mode}: ${verified.errorMessage}`);
    assert.match(verified.errorMessage, /the copy on "first" is corrupt .*; the copy on "second" verified/);
    assert.match(verified.summary, new RegExp(`^${mode}: `));
    assert.equal(verified.sourceTargetName, 'second');
    assert.equal((await copies(app, admin, v.id))[0]!.status, 'corrupt');
  }

  // Replication: the corrupt source is followed by the healthy one; the new copy is intact.
  const p = await corruptRecord();
  const third = await diskTarget(t, app, admin, 'third');
  const rep = await call(app, 'POST', `/api/backup/records/${p.id}/replicate`, {
    token: admin,
    body: { destTargetId: third.id },
  });
  assert.equal(rep.status, 200, rep.body);
  const replicated = await read(app, admin, `/api/replication/records/${rep.json.data.id}`);
  assert.equal(replicated.status, 'success', replicated.errorMessage);
  assert.equal(replicated.sourceTargetName, 'second');
  assert.match(replicated.errorMessage, /the copy on "first" is corrupt/);
  assert.equal(sha256(await readFile(join(third.dir, p.storagePath))), p.checksum);
  assert.deepEqual(
    (await copies(app, admin, p.id)).map((c) => [c.storageTargetName, c.status]),
    [
      ['first', 'corrupt'],
      ['second', 'success'],
      ['third', 'success'],
    ],
  );
});

test('with every copy corrupt, restore, verification, replication and download fail clearly and leave nothing behind', async (t) => {
  const { app, admin, src, corruptRecord } = await twoCopies(t);
  const b = await corruptRecord(true);
  await writeFile(join(src, 'keep.txt'), 'after corruption');

  const restore = await call(app, 'POST', `/api/backup/records/${b.id}/restore`, { token: admin, body: {} });
  const failed = await read(app, admin, `/api/restore/records/${restore.json.data.id}`);
  assert.equal(failed.status, 'failed');
  assert.match(
    failed.errorMessage,
    /every copy that could be read failed its integrity check \("first": SHA-256 .*; "second": SHA-256 /,
  );
  assert.equal(await readFile(join(src, 'keep.txt'), 'utf8'), 'after corruption', 'nothing was overwritten');
  assert.deepEqual(
    (await copies(app, admin, b.id)).map((c) => c.status),
    ['corrupt', 'corrupt'],
  );

  const verify = await call(app, 'POST', `/api/backup/records/${b.id}/verify`, {
    token: admin,
    body: { mode: 'quick' },
  });
  const v = await read(app, admin, `/api/verify/records/${verify.json.data.id}`);
  assert.equal(v.status, 'failed');
  assert.match(v.errorMessage, /every copy that could be read failed its integrity check/);

  const third = await diskTarget(t, app, admin, 'third');
  const rep = await call(app, 'POST', `/api/backup/records/${b.id}/replicate`, {
    token: admin,
    body: { destTargetId: third.id },
  });
  const r = await read(app, admin, `/api/replication/records/${rep.json.data.id}`);
  assert.equal(r.status, 'failed');
  assert.match(r.errorMessage, /every copy that could be read failed its integrity check/);
  assert.deepEqual(await readdir(third.dir), [], 'the destination keeps nothing');

  const download = await call(app, 'GET', `/api/backup/records/${b.id}/download`, { token: admin });
  assert.equal(download.status, 409);
  assert.equal(download.json.code, 'BACKUP_ARTIFACT_CORRUPT');
  assert.match(download.json.message, /first.*second/);
});
