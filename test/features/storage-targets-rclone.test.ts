import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { build, call, setupAdmin } from '../helpers/build.ts';
import { startWebdavServer, startSftpServer, closedPort } from '../helpers/rclone-servers.ts';

test('a WebDAV target is created, masked, tested and used through the API', async (t) => {
  const server = await startWebdavServer();
  t.after(() => server.stop());
  const { app } = await build(t);
  const admin = await setupAdmin(app);

  const backends = await call(app, 'GET', '/api/storage-targets/rclone/backends', { token: admin });
  const webdav = backends.json.data.find((b: { name: string }) => b.name === 'webdav');
  assert.ok(webdav.options.some((o: { key: string; isPassword: boolean }) => o.key === 'pass' && o.isPassword));

  const body = {
    name: 'nas',
    type: 'webdav',
    config: { url: server.url, vendor: 'other', user: server.user, pass: server.pass, path: 'backups' },
  };
  const unsaved = await call(app, 'POST', '/api/storage-targets/test', { token: admin, body });
  assert.equal(unsaved.status, 200, unsaved.body);

  const created = await call(app, 'POST', '/api/storage-targets', { token: admin, body });
  assert.equal(created.status, 200, created.body);
  assert.equal(created.json.data.config.pass, '********');
  assert.ok(!created.body.includes(server.pass));
  const id = created.json.data.id;

  const tested = await call(app, 'POST', `/api/storage-targets/${id}/test`, { token: admin });
  assert.equal(tested.status, 200, tested.body);
  // The probe cleaned up after itself: the served folder holds no leftovers.
  const leftovers = await readdir(server.dir, { recursive: true }).catch(() => []);
  assert.deepEqual(
    leftovers.filter((f) => !String(f).endsWith('backups')),
    [],
  );

  const wrong = await call(app, 'POST', '/api/storage-targets/test', {
    token: admin,
    body: { ...body, config: { ...body.config, pass: 'wrong-password' } },
  });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.json.code, 'STORAGE_TARGET_TEST_FAILED');
  assert.ok(!wrong.body.includes('wrong-password'), 'the reason does not echo the password');
});

test('an unreachable SFTP host fails its test promptly with a coded 400', async (t) => {
  const sftp = await startSftpServer();
  t.after(() => sftp.stop());
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const port = await closedPort();
  const res = await call(app, 'POST', '/api/storage-targets/test', {
    token: admin,
    body: {
      name: 'far',
      type: 'sftp',
      config: { host: '127.0.0.1', port, user: sftp.user, pass: sftp.pass, path: 'x' },
    },
  });
  assert.equal(res.status, 400, res.body);
  assert.equal(res.json.code, 'STORAGE_TARGET_TEST_FAILED');
  const ok = await call(app, 'POST', '/api/storage-targets/test', {
    token: admin,
    body: {
      name: 'near',
      type: 'sftp',
      config: { host: sftp.host, port: sftp.port, user: sftp.user, pass: sftp.pass, path: 'x' },
    },
  });
  assert.equal(ok.status, 200, ok.body);
});

test('an edited target is tested with its stored secret: targetId fills in what the form left out', async (t) => {
  const server = await startWebdavServer();
  t.after(() => server.stop());
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const body = {
    name: 'nas',
    type: 'webdav',
    config: { url: server.url, vendor: 'other', user: server.user, pass: server.pass, path: 'backups' },
  };
  const created = await call(app, 'POST', '/api/storage-targets', { token: admin, body });
  assert.equal(created.status, 200, created.body);
  const id = created.json.data.id as number;
  // The edit form sends the settings back without the secret (or masked).
  const { pass: _pass, ...withoutSecret } = body.config;
  const edited = { ...body, config: { ...withoutSecret, path: 'elsewhere' } };
  const alone = await call(app, 'POST', '/api/storage-targets/test', { token: admin, body: edited });
  assert.equal(alone.status, 400, 'without the stored secret the server refuses the login');
  const withStored = await call(app, 'POST', '/api/storage-targets/test', {
    token: admin,
    body: { ...edited, targetId: id },
  });
  assert.equal(withStored.status, 200, withStored.body);
  const masked = await call(app, 'POST', '/api/storage-targets/test', {
    token: admin,
    body: { ...edited, config: { ...edited.config, pass: '********' }, targetId: id },
  });
  assert.equal(masked.status, 200, masked.body);
  // A typed secret wins over the stored one.
  const typed = await call(app, 'POST', '/api/storage-targets/test', {
    token: admin,
    body: { ...edited, config: { ...edited.config, pass: 'wrong-password' }, targetId: id },
  });
  assert.equal(typed.status, 400);
  const otherType = await call(app, 'POST', '/api/storage-targets/test', {
    token: admin,
    body: { name: 'x', type: 'local_disk', config: { basePath: '/tmp' }, targetId: id },
  });
  assert.equal(otherType.json.code, 'STORAGE_TARGET_TYPE_IMMUTABLE');
  const missing = await call(app, 'POST', '/api/storage-targets/test', {
    token: admin,
    body: { ...edited, targetId: 9999 },
  });
  assert.equal(missing.status, 404);
  assert.equal(missing.json.code, 'STORAGE_TARGET_NOT_FOUND');
});
