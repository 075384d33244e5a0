import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { startWebdavServer, type RcloneServer } from '../helpers/rclone-servers.ts';
import { startBreakingProxy, type BreakingProxyOptions } from '../helpers/breaking-proxy.ts';
import { PROFILES } from '../../plugins/storage-rclone/invocation.ts';
import { diskTarget, createTask, runAndWait } from './helpers.ts';

/**
 * A real rclone WebDAV backend behind a proxy that cuts uploads short: a transient break early
 * in the upload (inside the pipeline's 8 MiB replay window) is retried and the run succeeds;
 * a target that keeps breaking fails on its own, the other target keeps a complete artifact,
 * the record is `partial`, and the broken target is left with nothing under the record's key.
 */

const run = promisify(execFile);
const RCLONE = process.env.BACKPLANE_TEST_RCLONE ?? 'rclone';
const WEBDAV_ROOT = 'backups';
/** Bytes of each upload that get through before the proxy cuts the connection. */
const CUT_AFTER = 64 * 1024;
/**
 * rclone retries a failed PUT itself (it spools rcat's stdin, so it can): one `rclone rcat` makes
 * up to `--low-level-retries` PUTs (measured with rclone 1.60 and webdav: exactly that many, each
 * followed by a DELETE of the partial file) before it exits with code 5. Only when every one of
 * them is cut does the pipeline see a (transient) failure and restart the target.
 */
const PUTS_PER_RCAT = PROFILES.standard.lowLevelRetries;

/** ~3 MiB of incompressible data in a few files: stored, it stays well below the 8 MiB replay window. */
async function randomSource(t: TestContext): Promise<string> {
  const dir = await tempDir(t, 'backplane-partial-src-');
  for (let i = 0; i < 3; i++) await writeFile(join(dir, `blob-${i}.bin`), randomBytes(1024 * 1024));
  return dir;
}

async function webdavBehindProxy(t: TestContext, proxy: Omit<BreakingProxyOptions, 'upstream'>) {
  const server = await startWebdavServer();
  t.after(() => server.stop());
  const breaking = await startBreakingProxy({ upstream: server.url, ...proxy });
  t.after(() => breaking.close());
  return { server, proxy: breaking };
}

async function webdavTarget(
  app: FastifyInstance,
  token: string,
  name: string,
  url: string,
  server: RcloneServer,
): Promise<number> {
  const res = await call(app, 'POST', '/api/storage-targets', {
    token,
    body: {
      name,
      type: 'webdav',
      config: { url, vendor: 'other', user: server.user, pass: server.pass, path: WEBDAV_ROOT },
    },
  });
  assert.equal(res.status, 200, res.body);
  return res.json.data.id;
}

/** What rclone itself sees on the WebDAV server (straight, not through the proxy): every file, `.partial` temp objects included. */
async function webdavFiles(server: RcloneServer): Promise<{ Path: string; Size: number }[]> {
  const { stdout: obscured } = await run(RCLONE, ['obscure', server.pass], {
    env: { ...process.env, RCLONE_CONFIG: '/dev/null' },
  });
  const env = {
    ...process.env,
    RCLONE_CONFIG: '/dev/null',
    RCLONE_CONFIG_CHECK_TYPE: 'webdav',
    RCLONE_CONFIG_CHECK_URL: server.url,
    RCLONE_CONFIG_CHECK_VENDOR: 'other',
    RCLONE_CONFIG_CHECK_USER: server.user,
    RCLONE_CONFIG_CHECK_PASS: obscured.trim(),
  };
  try {
    const { stdout } = await run(
      RCLONE,
      ['lsjson', '-R', '--files-only', '--no-mimetype', '--log-level', 'ERROR', `check:${WEBDAV_ROOT}`],
      { env, timeout: 20_000 },
    );
    return (JSON.parse(stdout) as { Path: string; Size: number }[]).map(({ Path, Size }) => ({ Path, Size }));
  } catch (err) {
    // No backups folder at all holds no files.
    if (/directory not found/i.test(String((err as { stderr?: string }).stderr))) return [];
    throw err;
  }
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

test('a WebDAV upload cut early (inside the replay window) is retried and the run succeeds', async (t) => {
  const { server, proxy } = await webdavBehindProxy(t, {
    shouldBreak: ({ method }) => method === 'PUT',
    // Every PUT of the first rclone process: the first put() fails, the pipeline's restart gets through.
    breakTimes: PUTS_PER_RCAT,
    afterBytes: CUT_AFTER,
  });
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await randomSource(t);
  const targetId = await webdavTarget(app, admin, 'flaky-nas', proxy.url, server);
  const task = await createTask(app, admin, {
    name: 'Flaky Upload',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [targetId],
    compression: 'zstd',
    encrypt: true,
  });

  const record = await runAndWait(app, admin, task.id);
  assert.equal(record.status, 'success', `${record.errorMessage}\n${record.logContent}\n${proxy.seen.join('\n')}`);
  assert.equal(
    proxy.breaks,
    PUTS_PER_RCAT,
    `the proxy cut every PUT of the first rclone process:\n${proxy.seen.join('\n')}`,
  );
  assert.ok(
    record.fileSize > 3 * 1024 * 1024 && record.fileSize < 8 * 1024 * 1024,
    `stored ${record.fileSize} bytes: inside the replay window`,
  );
  assert.equal(record.storageUploadResults.length, 1);
  const [result] = record.storageUploadResults;
  assert.equal(result.storageTargetId, targetId);
  assert.equal(result.status, 'success');
  assert.equal(result.fileSize, record.fileSize);
  assert.ok(
    result.attempts >= 2,
    `attempts ${result.attempts}: the cut upload was restarted by the pipeline\n${record.logContent}`,
  );

  // The object on the server is the whole checksummed artifact, and nothing else is left there.
  const stored = await readFile(join(server.dir, WEBDAV_ROOT, record.storagePath));
  assert.equal(stored.length, record.fileSize);
  assert.equal(sha256(stored), record.checksum);
  assert.deepEqual(await webdavFiles(server), [{ Path: record.storagePath, Size: record.fileSize }]);
});

test('a WebDAV target that keeps breaking fails alone: the record is partial, the good copy complete, the bad one empty', async (t) => {
  const { server, proxy } = await webdavBehindProxy(t, {
    shouldBreak: ({ method }) => method === 'PUT',
    breakTimes: Infinity,
    afterBytes: CUT_AFTER,
  });
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await randomSource(t);
  const good = await diskTarget(t, app, admin, 'good-disk');
  const badId = await webdavTarget(app, admin, 'broken-nas', proxy.url, server);
  const task = await createTask(app, admin, {
    name: 'Half Stored',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [good.id, badId],
    compression: 'zstd',
    encrypt: true,
  });

  const record = await runAndWait(app, admin, task.id);
  assert.equal(record.status, 'partial', `${record.errorMessage}\n${record.logContent}`);
  assert.ok(
    proxy.breaks >= 2 * PUTS_PER_RCAT,
    `the proxy cut ${proxy.breaks} upload(s): more than one rclone process tried`,
  );
  assert.match(record.errorMessage, /broken-nas: /);

  const byTarget = new Map(record.storageUploadResults.map((r: { storageTargetId: number }) => [r.storageTargetId, r]));
  const goodResult: any = byTarget.get(good.id);
  const badResult: any = byTarget.get(badId);
  assert.equal(goodResult.status, 'success');
  assert.equal(goodResult.storagePath, record.storagePath);
  assert.equal(goodResult.fileSize, record.fileSize);
  assert.equal(badResult.status, 'failed');
  assert.equal(badResult.storageTargetName, 'broken-nas');
  assert.match(badResult.error, /^rclone rcat: .*(connection reset|use of closed network connection|broken pipe|EOF)/i);
  assert.ok(
    badResult.attempts > 1,
    `attempts ${badResult.attempts}: the transient failure was retried before giving up\n${record.logContent}`,
  );

  // The good target holds the complete, checksummed artifact.
  const bytes = await readFile(join(good.dir, record.storagePath));
  assert.equal(bytes.length, record.fileSize);
  assert.equal(sha256(bytes), record.checksum);

  // The bad target holds nothing: no object under the key, no temporary leftovers anywhere.
  assert.deepEqual(await webdavFiles(server), []);
});
