import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { createTask, runAndWait } from '../backup/helpers.ts';
import { GoogleStandIn } from '../helpers/google-stand-in.ts';
import { startSftpServer, startWebdavServer } from '../helpers/rclone-servers.ts';
import { startFtpRecorder, startHttpRecorder } from '../helpers/recording-servers.ts';
import { expectEnvelope, expectShape, Nullable, Opt, Ref, Time } from './reference-shape.ts';

// ---- BackupX's shapes ---------------------------------------------------------------------------

/** web/src/types/storage-targets.ts StorageTargetSummary; server/internal/service/storage_target_service.go StorageTargetSummary. */
const Summary = Ref({
  id: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  type: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  starred: Type.Boolean(),
  configVersion: Type.Integer(),
  lastTestedAt: Nullable(Time),
  lastTestStatus: Type.Union([Type.Literal('unknown'), Type.Literal('success'), Type.Literal('failed')]),
  lastTestMessage: Type.String(),
  quotaBytes: Type.Integer({ minimum: 0 }),
  updatedAt: Time,
});

/** StorageTargetDetail: the summary plus `config: Record<string, string | boolean>` (numbers as Go's map carries them) and `maskedFields?`. */
const Detail = Type.Intersect([
  Summary,
  Ref({
    config: Type.Record(Type.String(), Type.Union([Type.String(), Type.Boolean(), Type.Number()])),
    maskedFields: Opt(Type.Array(Type.String())),
  }),
]);

/** StorageConnectionTestResult. */
const TestResult = Ref({ success: Type.Boolean(), message: Type.String() });

/** web/src/services/storage-targets.ts StorageTargetUsage / StorageDiskUsage (Go: `diskUsage,omitempty`, fields `omitempty`). */
const Usage = Ref({
  targetId: Type.Integer(),
  targetName: Type.String(),
  recordCount: Type.Integer({ minimum: 0 }),
  totalSize: Type.Integer({ minimum: 0 }),
  diskUsage: Opt(
    Ref({ total: Opt(Type.Number()), used: Opt(Type.Number()), free: Opt(Type.Number()), objects: Opt(Type.Number()) }),
  ),
});

/** web/src/services/rclone.ts RcloneBackendInfo. */
const Backend = Ref({
  name: Type.String(),
  description: Type.String(),
  options: Type.Array(
    Ref({ key: Type.String(), label: Type.String(), required: Type.Boolean(), isPassword: Type.Boolean() }),
  ),
});

/** GoogleDriveAuthStartResult, GoogleDriveCallbackResult; the handler's profile map. */
const AuthStart = Ref({ authUrl: Type.String({ minLength: 1 }) });
const Callback = Ref({ success: Type.Boolean(), message: Type.String(), target: Opt(Detail) });
const Profile = Ref({ email: Type.String(), name: Type.String(), picture: Type.String() });

// ---- what BackupX's console sends -----------------------------------------------------------------

/** StorageTargetPayload as StorageTargetFormDrawer submits it: every field, config under BackupX's keys. */
function payload(name: string, type: string, config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { name, type, description: '', enabled: true, config, quotaBytes: 0, ...extra };
}

async function admin(t: TestContext) {
  const { app } = await build(t);
  return { app, token: await setupAdmin(app) };
}

async function created(app: FastifyInstance, token: string, body: Record<string, unknown>) {
  return expectEnvelope(
    await call(app, 'POST', '/api/storage-targets', { token, body }),
    Detail,
    `create ${String(body.type)}`,
  );
}

/** A file task over a folder holding one file, run once on the master; the record. */
async function backUp(t: TestContext, app: FastifyInstance, token: string, targetId: number, name: string) {
  const src = await tempDir(t);
  await writeFile(join(src, 'hello.txt'), 'hello from a BackupX client');
  const task = await createTask(app, token, { name, type: 'file', sourcePaths: [src], storageTargetIds: [targetId] });
  const record = await runAndWait(app, token, task.id);
  assert.equal(record.status, 'success', JSON.stringify(record));
  return record;
}

/** The error names the field in `details[].path` and in its message. */
function namesField(
  res: { status: number; json: any; body: string },
  path: string,
  code = 'STORAGE_TARGET_INVALID_CONFIG',
): void {
  assert.equal(res.status, 400, res.body);
  assert.equal(res.json.code, code);
  assert.ok(
    res.json.details?.some((d: { path: string }) => d.path === path),
    `details name ${path}: ${res.body}`,
  );
  assert.ok(res.json.message.includes(path), `the message names ${path}: ${res.json.message}`);
}

/** Runs `work` with the rclone children's environment changed (restored afterwards). */
async function withEnv<T>(changes: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(changes).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  };
  apply(changes);
  try {
    return await work();
  } finally {
    apply(before);
  }
}

// The AWS SDK inside rclone fails on AWS_CA_BUNDLE with rclone's own transport; the S3 tests run without it.
const S3_ENV = { AWS_CA_BUNDLE: undefined, AWS_PROFILE: undefined };

// ---- one test per route BackupX's client reads ---------------------------------------------------

test('GET /api/storage-targets answers a plain array of BackupX summaries', async (t) => {
  const { app, token } = await admin(t);
  await created(app, token, payload('disk', 'local_disk', { basePath: await tempDir(t), masterRelay: true }));
  const res = await call(app, 'GET', '/api/storage-targets', { token });
  const list = expectEnvelope(res, Type.Array(Summary), 'list');
  assert.equal(list.length, 1);
  assert.equal(res.headers['x-total-count'], '1');
});

test("POST /api/storage-targets takes BackupX's local_disk payload and answers the detail", async (t) => {
  const { app, token } = await admin(t);
  const dir = await tempDir(t);
  const target = await created(
    app,
    token,
    payload('disk', 'local_disk', { basePath: dir, masterRelay: true }, { quotaBytes: 5 * 1024 ** 3 }),
  );
  assert.equal(target.type, 'local_disk');
  assert.equal(target.quotaBytes, 5 * 1024 ** 3);
  assert.deepEqual(target.config, { basePath: dir, masterRelay: true });
});

test('GET /api/storage-targets/:id answers the detail with secrets masked as BackupX masks them', async (t) => {
  const server = await startWebdavServer();
  t.after(() => server.stop());
  const { app, token } = await admin(t);
  const { id } = await created(
    app,
    token,
    payload('nas', 'webdav', { endpoint: server.url, username: server.user, password: server.pass, basePath: 'bx' }),
  );
  const res = await call(app, 'GET', `/api/storage-targets/${id}`, { token });
  const detail = expectEnvelope(res, Detail, 'detail');
  assert.equal(detail.config.password, '********');
  assert.ok(detail.maskedFields.includes('password'), "BackupX's name of the secret is listed as masked");
  assert.equal(
    detail.config.endpoint,
    server.url.replace(/\/$/, ''),
    'BackupX trims the trailing slash of a WebDAV endpoint',
  );
  assert.equal(detail.config.username, server.user);
  assert.equal(detail.config.basePath, 'bx');
  assert.ok(!res.body.includes(server.pass));
});

test("PUT /api/storage-targets/:id takes back the detail BackupX's form edited", async (t) => {
  const server = await startWebdavServer();
  t.after(() => server.stop());
  const { app, token } = await admin(t);
  const before = await created(
    app,
    token,
    payload('nas', 'webdav', { endpoint: server.url, username: server.user, password: server.pass, basePath: 'first' }),
  );
  // The form spreads the detail's config (masked secret, both key sets) and changes one field.
  const body = payload('nas', 'webdav', { ...before.config, basePath: 'second' }, { description: 'moved' });
  const res = await call(app, 'PUT', `/api/storage-targets/${before.id}`, { token, body });
  const after = expectEnvelope(res, Detail, 'update');
  assert.equal(after.config.basePath, 'second');
  assert.equal(after.config.path, 'second', 'the edited BackupX key wins over the unchanged Backplane key');
  assert.equal(after.description, 'moved');
  // The masked password was kept: the saved target still logs in, and writes under the new folder.
  expectEnvelope(
    await call(app, 'POST', `/api/storage-targets/${before.id}/test`, { token }),
    TestResult,
    'saved test',
  );
  assert.ok((await stat(join(server.dir, 'second'))).isDirectory());
});

test('DELETE /api/storage-targets/:id answers {deleted: true}', async (t) => {
  const { app, token } = await admin(t);
  const { id } = await created(
    app,
    token,
    payload('disk', 'local_disk', { basePath: await tempDir(t), masterRelay: true }),
  );
  const data = expectEnvelope(
    await call(app, 'DELETE', `/api/storage-targets/${id}`, { token }),
    Ref({ deleted: Type.Boolean() }),
    'delete',
  );
  assert.equal(data.deleted, true);
});

test('PUT /api/storage-targets/:id/star answers the summary, flipped', async (t) => {
  const { app, token } = await admin(t);
  const { id } = await created(
    app,
    token,
    payload('disk', 'local_disk', { basePath: await tempDir(t), masterRelay: true }),
  );
  const data = expectEnvelope(await call(app, 'PUT', `/api/storage-targets/${id}/star`, { token }), Summary, 'star');
  assert.equal(data.starred, true);
});

test('POST /api/storage-targets/test answers {success, message}; a failure is 400 STORAGE_TARGET_TEST_FAILED', async (t) => {
  const { app, token } = await admin(t);
  const dir = await tempDir(t);
  const ok = expectEnvelope(
    await call(app, 'POST', '/api/storage-targets/test', {
      token,
      body: payload('disk', 'local_disk', { basePath: dir, masterRelay: true }),
    }),
    TestResult,
    'test',
  );
  assert.equal(ok.success, true);
  await writeFile(join(dir, 'file'), 'x');
  const bad = await call(app, 'POST', '/api/storage-targets/test', {
    token,
    body: payload('disk', 'local_disk', { basePath: join(dir, 'file', 'sub'), masterRelay: true }),
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, 'STORAGE_TARGET_TEST_FAILED');
});

test('POST /api/storage-targets/:id/test answers {success, message} and records the outcome', async (t) => {
  const { app, token } = await admin(t);
  const { id } = await created(
    app,
    token,
    payload('disk', 'local_disk', { basePath: await tempDir(t), masterRelay: true }),
  );
  const data = expectEnvelope(
    await call(app, 'POST', `/api/storage-targets/${id}/test`, { token }),
    TestResult,
    'saved test',
  );
  assert.equal(data.success, true);
  const detail = expectEnvelope(await call(app, 'GET', `/api/storage-targets/${id}`, { token }), Detail, 'detail');
  assert.equal(detail.lastTestStatus, 'success');
});

test("GET /api/storage-targets/:id/usage answers BackupX's usage; diskUsage only where the backend reports it", async (t) => {
  const server = await startWebdavServer();
  t.after(() => server.stop());
  const { app, token } = await admin(t);
  const disk = await created(
    app,
    token,
    payload('disk', 'local_disk', { basePath: await tempDir(t), masterRelay: true }),
  );
  const record = await backUp(t, app, token, disk.id, 'usage');
  const usage = expectEnvelope(
    await call(app, 'GET', `/api/storage-targets/${disk.id}/usage`, { token }),
    Usage,
    'usage',
  );
  assert.equal(usage.totalSize, record.fileSize);
  assert.ok(usage.diskUsage.total > 0 && usage.diskUsage.used >= 0, 'a local disk reports its capacity');
  // An FTP server never reports capacity: no diskUsage at all (BackupX omits it), not null.
  const ftp = await startFtpRecorder();
  t.after(() => ftp.close());
  const far = await created(
    app,
    token,
    payload('ftp', 'ftp', {
      host: ftp.host,
      port: String(ftp.port),
      username: 'u',
      password: 'p',
      basePath: '',
      useTLS: false,
    }),
  );
  const none = await call(app, 'GET', `/api/storage-targets/${far.id}/usage`, { token });
  expectEnvelope(none, Usage, 'usage without capacity');
  assert.equal('diskUsage' in none.json.data, false);
});

test("GET /api/storage-targets/rclone/backends answers BackupX's backend catalogue", async (t) => {
  const { app, token } = await admin(t);
  const list = expectEnvelope(
    await call(app, 'GET', '/api/storage-targets/rclone/backends', { token }),
    Type.Array(Backend),
    'backends',
  );
  const sftp = list.find((b: { name: string }) => b.name === 'sftp');
  assert.ok(sftp?.options.some((o: { key: string; isPassword: boolean }) => o.key === 'pass' && o.isPassword));
  assert.ok(
    !list.some((b: { name: string }) => ['crypt', 'union', 'aliyun_oss'].includes(b.name)),
    "wrappers and BackupX's built-in types are not rclone backends",
  );
});

async function driveApp(t: TestContext) {
  const standIn = await GoogleStandIn.start();
  t.after(() => standIn.close());
  const { app } = await build(t, {
    config: {
      googleAuthUrl: standIn.authUrl,
      googleTokenUrl: standIn.tokenUrl,
      googleApiUrl: standIn.apiUrl,
      externalUrl: 'https://backup.example',
    },
  });
  return { app, token: await setupAdmin(app), standIn };
}

/** The browser's part: Google's consent redirects back with code and state. */
async function consent(authUrl: string): Promise<Record<string, string>> {
  const res = await fetch(authUrl, { redirect: 'manual' });
  assert.equal(res.status, 302, await res.text());
  return Object.fromEntries(new URL(res.headers.get('location')!).searchParams);
}

test("POST /api/storage-targets/google-drive/auth-url takes BackupX's draft and answers {authUrl}", async (t) => {
  const { app, token, standIn } = await driveApp(t);
  // startGoogleDriveAuth sends the whole form payload plus targetId.
  const body = payload(
    'drive',
    'google_drive',
    { clientId: standIn.clientId, clientSecret: standIn.clientSecret, folderId: '' },
    { quotaBytes: 1024 },
  );
  const start = expectEnvelope(
    await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', { token, body }),
    AuthStart,
    'auth-url',
  );
  // The callback page (GoogleDriveCallbackPage) calls the callback route with Google's query.
  const res = await call(app, 'GET', '/api/storage-targets/google-drive/callback', {
    token,
    query: await consent(start.authUrl),
  });
  const done = expectEnvelope(res, Callback, 'callback');
  assert.equal(done.success, true);
  assert.equal(done.target.quotaBytes, 1024, "the draft's quota is applied to the created target");
  const wrongType = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token,
    body: { ...body, type: 's3' },
  });
  assert.equal(wrongType.status, 400);
  assert.equal(wrongType.json.code, 'STORAGE_GOOGLE_DRIVE_TYPE_MISMATCH');
});

test('GET /api/storage-targets/google-drive/callback: an error from Google is {success: false, message} without a target', async (t) => {
  const { app, token } = await driveApp(t);
  const data = expectEnvelope(
    await call(app, 'GET', '/api/storage-targets/google-drive/callback', { token, query: { error: 'access_denied' } }),
    Callback,
    'callback error',
  );
  assert.equal(data.success, false);
  assert.equal('target' in data, false);
});

test('POST /api/storage-targets/google-drive/complete answers the detail', async (t) => {
  const { app, token, standIn } = await driveApp(t);
  const start = (
    await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
      token,
      body: payload('drive', 'google_drive', { clientId: standIn.clientId, clientSecret: standIn.clientSecret }),
    })
  ).json.data;
  const { state, code } = await consent(start.authUrl);
  const detail = expectEnvelope(
    await call(app, 'POST', '/api/storage-targets/google-drive/complete', { token, body: { state, code } }),
    Detail,
    'complete',
  );
  assert.equal(detail.type, 'google_drive');
  assert.equal(detail.config.refreshToken, '********');
});

test('GET /api/storage-targets/:id/google-drive/profile answers {email, name, picture}', async (t) => {
  const { app, token, standIn } = await driveApp(t);
  const start = (
    await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
      token,
      body: payload('drive', 'google_drive', { clientId: standIn.clientId, clientSecret: standIn.clientSecret }),
    })
  ).json.data;
  const target = (
    await call(app, 'POST', '/api/storage-targets/google-drive/complete', { token, body: await consent(start.authUrl) })
  ).json.data;
  const profile = expectEnvelope(
    await call(app, 'GET', `/api/storage-targets/${target.id}/google-drive/profile`, { token }),
    Profile,
    'profile',
  );
  assert.equal(profile.email, standIn.user.emailAddress);
});

// ---- BackupX's config keys are honoured -------------------------------------------------------------

test('local_disk: basePath decides where backups land; masterRelay is the opposite of agentDirectUpload', async (t) => {
  const { app, token } = await admin(t);
  const dir = await tempDir(t);
  const target = await created(app, token, payload('disk', 'local_disk', { basePath: dir, masterRelay: true }));
  assert.equal(target.agentDirectUpload, false, 'masterRelay: remote agents stream through the master');
  const record = await backUp(t, app, token, target.id, 'Local');
  assert.ok((await stat(join(dir, record.storagePath))).isFile(), 'the artifact is under basePath');

  const direct = expectEnvelope(
    await call(app, 'PUT', `/api/storage-targets/${target.id}`, {
      token,
      body: payload('disk', 'local_disk', { ...target.config, masterRelay: false }),
    }),
    Detail,
    'relay off',
  );
  assert.equal(direct.agentDirectUpload, true, 'masterRelay false: agents write to basePath on their own disk');
  assert.equal(direct.config.masterRelay, false);
  const relayed = expectEnvelope(
    await call(app, 'PUT', `/api/storage-targets/${target.id}`, { token, body: { agentDirectUpload: false } }),
    Detail,
    'Backplane key',
  );
  assert.equal(relayed.config.masterRelay, true, "Backplane's key is read back under BackupX's name");

  const notBool = await call(app, 'POST', '/api/storage-targets', {
    token,
    body: payload('x', 'local_disk', { basePath: dir, masterRelay: 'yes' }),
  });
  namesField(notBool, 'config/masterRelay');
  const contradiction = await call(app, 'POST', '/api/storage-targets', {
    token,
    body: payload('y', 'local_disk', { basePath: dir, masterRelay: true }, { agentDirectUpload: true }),
  });
  namesField(contradiction, 'config/masterRelay');
});

test("webdav: BackupX's endpoint, username, password and basePath are used to store backups", async (t) => {
  const server = await startWebdavServer();
  t.after(() => server.stop());
  const { app, token } = await admin(t);
  const config = { endpoint: server.url, username: server.user, password: server.pass, basePath: 'bx-backups' };
  expectEnvelope(
    await call(app, 'POST', '/api/storage-targets/test', { token, body: payload('nas', 'webdav', config) }),
    TestResult,
    'test',
  );
  const wrong = await call(app, 'POST', '/api/storage-targets/test', {
    token,
    body: payload('nas', 'webdav', { ...config, password: 'wrong' }),
  });
  assert.equal(wrong.json.code, 'STORAGE_TARGET_TEST_FAILED', 'the password is the one sent');
  const target = await created(app, token, payload('nas', 'webdav', config));
  const record = await backUp(t, app, token, target.id, 'Dav');
  assert.ok(
    (await stat(join(server.dir, 'bx-backups', record.storagePath))).isFile(),
    'the artifact is under basePath',
  );
});

test("sftp and other rclone backends: BackupX's root is the folder inside the remote, also for the generic rclone type", async (t) => {
  const server = await startSftpServer();
  t.after(() => server.stop());
  const { app, token } = await admin(t);
  const target = await created(
    app,
    token,
    payload('ssh', 'sftp', {
      host: server.host,
      port: String(server.port),
      user: server.user,
      pass: server.pass,
      root: 'bx-root',
    }),
  );
  assert.equal(target.config.root, 'bx-root');
  const record = await backUp(t, app, token, target.id, 'Sftp');
  assert.ok((await stat(join(server.dir, 'bx-root', record.storagePath))).isFile());

  // BackupX's generic type: the backend's options at the top level of the config.
  const generic = {
    backend: 'sftp',
    root: 'bx-generic',
    host: server.host,
    port: String(server.port),
    user: server.user,
    pass: server.pass,
  };
  expectEnvelope(
    await call(app, 'POST', '/api/storage-targets/test', { token, body: payload('any', 'rclone', generic) }),
    TestResult,
    'generic test',
  );
  assert.deepEqual(await readdir(join(server.dir, 'bx-generic')), [], 'the probe ran in root and cleaned up');
  const wrong = await call(app, 'POST', '/api/storage-targets/test', {
    token,
    body: payload('any', 'rclone', { ...generic, pass: 'wrong' }),
  });
  assert.equal(wrong.json.code, 'STORAGE_TARGET_TEST_FAILED', 'top-level options reach rclone');
});

test("ftp: BackupX's host, port, username (anonymous when empty), password, basePath and useTLS reach the server", async (t) => {
  const ftp = await startFtpRecorder();
  t.after(() => ftp.close());
  const { app, token } = await admin(t);
  const body = (config: Record<string, unknown>) => ({
    token,
    body: payload('ftp', 'ftp', { host: ftp.host, port: String(ftp.port), basePath: 'bx-base', ...config }),
  });
  await call(
    app,
    'POST',
    '/api/storage-targets/test',
    body({ username: 'alice', password: 'secret-1', useTLS: false }),
  );
  assert.deepEqual(ftp.commands.slice(0, 2), ['USER alice', 'PASS secret-1']);
  assert.ok(ftp.commands.includes('MKD bx-base'), `basePath is the folder: ${ftp.commands.join(' | ')}`);
  ftp.commands.length = 0;
  await call(app, 'POST', '/api/storage-targets/test', body({ username: '', password: 'x', useTLS: false }));
  assert.equal(ftp.commands[0], 'USER anonymous', 'an empty username logs in as anonymous, as BackupX does');
  ftp.commands.length = 0;
  const tls = await call(
    app,
    'POST',
    '/api/storage-targets/test',
    body({ username: 'alice', password: 'secret-1', useTLS: true }),
  );
  assert.equal(tls.json.code, 'STORAGE_TARGET_TEST_FAILED');
  assert.equal(ftp.commands[0], 'AUTH TLS', 'useTLS is explicit FTPS');

  const saved = await created(
    app,
    token,
    payload('ftp', 'ftp', {
      host: ftp.host,
      port: String(ftp.port),
      username: 'alice',
      password: 'secret-1',
      basePath: 'bx-base',
      useTLS: true,
    }),
  );
  assert.equal(saved.config.useTLS, true);
  assert.equal(saved.config.password, '********');
  assert.equal(saved.config.basePath, 'bx-base');
});

test("s3: BackupX's endpoint, region, bucket, keys and forcePathStyle reach the S3 API", async (t) => {
  const s3 = await startHttpRecorder();
  t.after(() => s3.close());
  const { app, token } = await admin(t);
  const config = {
    endpoint: s3.url,
    region: 'eu-west-3',
    bucket: 'bx-bucket',
    accessKeyId: 'AKIDBACKUPX',
    secretAccessKey: 'backupx-secret',
    forcePathStyle: true,
  };
  const res = await withEnv(S3_ENV, () =>
    call(app, 'POST', '/api/storage-targets/test', { token, body: payload('s3', 's3', config) }),
  );
  assert.equal(res.json.code, 'STORAGE_TARGET_TEST_FAILED', 'the stand-in refuses every request');
  assert.ok(s3.requests.length > 0, 'the requests went to the endpoint');
  for (const r of s3.requests) {
    assert.match(r.url, /^\/bx-bucket\//, 'path style, in the bucket');
    assert.match(String(r.headers.authorization), /Credential=AKIDBACKUPX\/\d{8}\/eu-west-3\/s3\/aws4_request/);
  }
  assert.ok(
    !s3.requests.some((r) => r.method === 'PUT' && /^\/bx-bucket\/?$/.test(r.url)),
    'no bucket creation (no_check_bucket, as BackupX sets)',
  );

  const target = await created(app, token, payload('s3', 's3', config));
  assert.equal(target.config.bucket, 'bx-bucket');
  assert.equal(target.config.forcePathStyle, true);
  assert.equal(target.config.accessKeyId, '********');
  assert.equal(target.config.secretAccessKey, '********');
  assert.equal(target.config.provider, 'Other', "BackupX's s3 is provider Other");
  assert.deepEqual(
    target.maskedFields.filter((f: string) => /^[a-z]+[A-Z]/.test(f)),
    ['accessKeyId', 'secretAccessKey'],
  );
  namesField(
    await call(app, 'POST', '/api/storage-targets', { token, body: payload('s3b', 's3', { ...config, bucket: '' }) }),
    'config/bucket',
  );
});

test("aliyun_oss, tencent_cos, qiniu_kodo: BackupX's types go to the vendor's S3 endpoint for the region", async (t) => {
  const proxy = await startHttpRecorder();
  t.after(() => proxy.close());
  const { app, token } = await admin(t);
  const keys = { bucket: 'bxb', accessKeyId: 'AK', secretAccessKey: 'SK' };
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['aliyun_oss', { region: 'cn-hangzhou' }, /^bxb\.oss-cn-hangzhou\.aliyuncs\.com:443$/],
    [
      'aliyun_oss',
      { region: 'cn-hangzhou', internalNetwork: true },
      /^bxb\.oss-cn-hangzhou-internal\.aliyuncs\.com:443$/,
    ],
    ['tencent_cos', { region: 'ap-guangzhou' }, /^bxb\.cos\.ap-guangzhou\.myqcloud\.com:443$/],
    ['qiniu_kodo', { region: 'z0' }, /(^|\.)s3-cn-east-1\.qiniucs\.com:443$/],
    ['tencent_cos', { region: 'ap-guangzhou', endpoint: 'https://cos.example.test' }, /^bxb\.cos\.example\.test:443$/],
  ];
  // HTTPS to the vendors' hosts goes through the recorder as a proxy, which refuses every CONNECT:
  // nothing is resolved or sent beyond 127.0.0.1.
  const env = { ...S3_ENV, HTTPS_PROXY: proxy.url, https_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined };
  for (const [type, config, host] of cases) {
    proxy.connects.length = 0;
    const res = await withEnv(env, () =>
      call(app, 'POST', '/api/storage-targets/test', { token, body: payload(type, type, { ...config, ...keys }) }),
    );
    assert.equal(res.json.code, 'STORAGE_TARGET_TEST_FAILED', res.body);
    assert.ok(
      proxy.connects.length > 0 && proxy.connects.every((c) => host.test(c)),
      `${type} ${JSON.stringify(config)}: ${proxy.connects.join(', ')}`,
    );
  }
  const saved = await created(
    app,
    token,
    payload('oss', 'aliyun_oss', { region: 'cn-hangzhou', ...keys, internalNetwork: false }),
  );
  assert.equal(saved.type, 'aliyun_oss', 'the type BackupX sent is kept');
  assert.deepEqual(saved.maskedFields, ['accessKeyId', 'secretAccessKey']);
  namesField(
    await call(app, 'POST', '/api/storage-targets', {
      token,
      body: payload('q', 'qiniu_kodo', { region: 'mars-1', ...keys }),
    }),
    'config/region',
  );
  namesField(
    await call(app, 'POST', '/api/storage-targets', { token, body: payload('c', 'tencent_cos', { ...keys }) }),
    'config/region',
  );
});

test("a config saved under Backplane's keys survives BackupX's form sending it back unchanged", async (t) => {
  const { app, token } = await admin(t);
  const native = {
    endpoint: 'http://127.0.0.1:1',
    access_key_id: 'AK',
    secret_access_key: 'SK',
    path: 'bkt',
    force_path_style: true,
  };
  const target = await created(app, token, payload('native', 's3', native));
  assert.equal(target.config.accessKeyId, '********', "BackupX's names are in the detail");
  const res = await call(app, 'PUT', `/api/storage-targets/${target.id}`, {
    token,
    body: payload('native', 's3', target.config),
  });
  const after = expectEnvelope(res, Detail, 'round trip');
  assert.equal(after.config.provider, undefined, 'echoed BackupX keys are not a BackupX form: no provider is added');
  assert.equal(after.config.force_path_style, true);
  assert.equal(after.config.path, 'bkt');
  const dav = await created(app, token, payload('dav', 'webdav', { url: 'http://127.0.0.1:1/dav/', path: 'a' }));
  const back = expectEnvelope(
    await call(app, 'PUT', `/api/storage-targets/${dav.id}`, { token, body: payload('dav', 'webdav', dav.config) }),
    Detail,
    'dav round trip',
  );
  assert.equal(back.config.url, 'http://127.0.0.1:1/dav/', 'the stored URL is kept as it was');
  assert.equal(back.config.endpoint, 'http://127.0.0.1:1/dav', 'and shown as BackupX stores it');
});

test('config errors name the offending field, under the name the client used', async (t) => {
  const { app, token } = await admin(t);
  const post = (type: string, config: Record<string, unknown>) =>
    call(app, 'POST', '/api/storage-targets', { token, body: payload(`t-${type}`, type, config) });
  namesField(await post('webdav', { endpoint: 'http://127.0.0.1:1/', nope: 1 }), 'config/nope');
  namesField(await post('webdav', { username: 'u', password: 'p' }), 'config/endpoint');
  namesField(await post('local_disk', {}), 'config/basePath');
  const both = await post('webdav', { endpoint: 'http://127.0.0.1:1/a', url: 'http://127.0.0.1:1/b' });
  namesField(both, 'config/endpoint');
  assert.ok(both.json.message.includes('config/url'), 'a conflict names both fields');
});
