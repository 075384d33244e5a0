import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';

interface TypeView {
  type: string;
  displayName: string;
  family?: string;
  secretFields: string[];
  configSchema: Record<string, unknown>;
  capabilities: { oauth: boolean; usage: boolean; range: boolean };
  options: { key: string; required: boolean; isPassword: boolean; valueType?: string; examples: string[] }[];
}

test('GET /api/storage-targets/types describes every registered type with its fields (auth)', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  assert.equal((await call(app, 'GET', '/api/storage-targets/types')).status, 401);

  const viewer = await userWithRole(app, admin, 'viewer');
  const res = await call(app, 'GET', '/api/storage-targets/types', { token: viewer.token });
  assert.equal(res.status, 200, res.body);
  const types = res.json.data as TypeView[];

  const local = types.find((x) => x.type === 'local_disk');
  assert.ok(local, 'the local disk plugin type is listed');
  assert.equal(local.family, undefined);
  const basePath = local.options.find((o) => o.key === 'basePath');
  assert.deepEqual(
    { required: basePath?.required, isPassword: basePath?.isPassword, valueType: basePath?.valueType },
    { required: true, isPassword: false, valueType: 'string' },
  );
  assert.deepEqual(
    (local.configSchema as { required?: string[] }).required,
    ['basePath'],
    "the plugin's own schema is passed through",
  );

  const drive = types.find((x) => x.type === 'google_drive');
  assert.equal(drive?.capabilities.oauth, true);
  assert.ok(
    drive?.options.some((o) => o.key === 'clientSecret' && o.isPassword),
    'secret fields are marked',
  );
  assert.ok(drive?.secretFields.includes('clientSecret'));

  const webdav = types.find((x) => x.type === 'webdav');
  assert.equal(webdav?.family, 'rclone');
  assert.ok(webdav?.options.some((o) => o.key === 'pass' && o.isPassword));

  // Plugins' own types come before the rclone backends.
  const firstRclone = types.findIndex((x) => x.family === 'rclone');
  assert.ok(firstRclone > types.indexOf(local) && firstRclone > types.indexOf(drive!));
  assert.ok(types.slice(firstRclone).every((x) => x.family === 'rclone'));
});
