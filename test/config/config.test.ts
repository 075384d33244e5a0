import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, ConfigError } from '../../core/config/load-config.ts';
import { loadMasterKey, deriveKey } from '../../core/security/master-key.ts';
import { SecretBox } from '../../core/security/secret-box.ts';
import { tempDir } from '../helpers/build.ts';

test('defaults follow the contract', async (t) => {
  const cwd = await tempDir(t);
  const c = loadConfig({ env: {}, cwd });
  assert.equal(c.port, 8340);
  assert.equal(c.host, '0.0.0.0');
  assert.equal(c.dataDir, join(cwd, 'data'));
  assert.equal(c.databaseUrl, `sqlite:${join(cwd, 'data', 'backplane.db')}`);
  assert.deepEqual(c.trustedProxies, [], 'no proxy is trusted unless configured');
  assert.equal(c.maxConcurrent, 2);
  assert.equal(c.nodeOfflineSeconds, 45);
  assert.equal(c.commandLeaseSeconds, 120);
  assert.equal(c.jwtTtlSeconds, 86400);
});

test('the environment overrides the YAML file, which overrides defaults', async (t) => {
  const cwd = await tempDir(t);
  await mkdir(join(cwd, 'config'));
  await writeFile(
    join(cwd, 'config', 'backplane.yaml'),
    'port: 9000\nlogLevel: debug\nplugins: [a, b]\njwtTtlSeconds: 2h\n',
  );
  const fromFile = loadConfig({ env: {}, cwd });
  assert.equal(fromFile.port, 9000);
  assert.equal(fromFile.logLevel, 'debug');
  assert.deepEqual(fromFile.plugins, ['a', 'b']);
  assert.equal(fromFile.jwtTtlSeconds, 7200);
  const fromEnv = loadConfig({
    env: { BACKPLANE_PORT: '9100', BACKPLANE_PLUGINS: 'x, y', BACKPLANE_JWT_TTL: '30m' },
    cwd,
  });
  assert.equal(fromEnv.port, 9100);
  assert.deepEqual(fromEnv.plugins, ['x', 'y']);
  assert.equal(fromEnv.jwtTtlSeconds, 1800);
});

test('bad configuration is refused with the variable named', async (t) => {
  const cwd = await tempDir(t);
  assert.throws(
    () => loadConfig({ env: { BACKPLANE_PORT: 'eighty' }, cwd }),
    (e: Error) => e instanceof ConfigError && /BACKPLANE_PORT/.test(e.message),
  );
  assert.throws(() => loadConfig({ env: { BACKPLANE_DATABASE_URL: 'mysql://x' }, cwd }), /BACKPLANE_DATABASE_URL/);
  assert.throws(() => loadConfig({ env: { BACKPLANE_CONFIG: 'missing.yaml' }, cwd }), /file not found/);
  await mkdir(join(cwd, 'config'));
  await writeFile(join(cwd, 'config', 'backplane.yaml'), 'prot: 80\n');
  assert.throws(() => loadConfig({ env: {}, cwd }), /unknown key "prot"/);
});

test('the master key is generated once with mode 0600 and reused', async (t) => {
  const dir = await tempDir(t);
  const a = loadMasterKey(dir, undefined);
  const b = loadMasterKey(dir, undefined);
  assert.deepEqual(a, b);
  assert.equal(a.length, 32);
  assert.equal((await stat(join(dir, 'secret.key'))).mode & 0o777, 0o600);
  assert.match(await readFile(join(dir, 'secret.key'), 'utf8'), /^[0-9a-f]{64}\n$/);
  const fromEnv = loadMasterKey(dir, 'ab'.repeat(32));
  assert.deepEqual(fromEnv, Buffer.from('ab'.repeat(32), 'hex'));
  assert.throws(() => loadMasterKey(dir, 'short'), /32 bytes/);
});

test('sealed secrets round-trip, are bound to their place, and are not plaintext', () => {
  const box = new SecretBox(deriveKey(Buffer.alloc(32, 7), 'secrets'));
  const sealed = box.seal('hunter2', 'settings:x');
  assert.ok(!sealed.includes('hunter2'));
  assert.equal(box.open(sealed, 'settings:x'), 'hunter2');
  assert.throws(() => box.open(sealed, 'settings:y'));
  const other = new SecretBox(deriveKey(Buffer.alloc(32, 8), 'secrets'));
  assert.throws(() => other.open(sealed, 'settings:x'));
  assert.notDeepEqual(deriveKey(Buffer.alloc(32, 7), 'jwt'), deriveKey(Buffer.alloc(32, 7), 'secrets'));
});

test('single sign-on: oidc.providers and auth.* in the YAML file, BACKPLANE_OIDC_PROVIDERS as JSON', async (t) => {
  const cwd = await tempDir(t);
  await mkdir(join(cwd, 'config'));
  await writeFile(
    join(cwd, 'config', 'backplane.yaml'),
    [
      'oidc:',
      '  providers:',
      '    - name: keycloak',
      '      displayName: Company login',
      '      issuer: https://sso.example.com/realms/ops',
      '      clientId: backplane',
      '      clientSecret: s3cret',
      '      roleClaim: groups',
      '      roleMap: { backup-admins: admin, ops: operator }',
      '      autoProvision: true',
      'auth:',
      '  localLogin: break-glass',
      '  breakGlassUsers: [admin]',
      '',
    ].join('\n'),
  );
  const c = loadConfig({ env: {}, cwd });
  assert.equal(c.oidcProviders.length, 1);
  const p = c.oidcProviders[0]!;
  assert.equal(p.name, 'keycloak');
  assert.equal(p.issuer, 'https://sso.example.com/realms/ops');
  assert.deepEqual(p.scopes, ['openid', 'email', 'profile'], 'the default scopes');
  assert.deepEqual(p.roleMap, { 'backup-admins': 'admin', ops: 'operator' });
  assert.equal(p.autoProvision, true);
  assert.equal(p.allowEmailLinking, false, 'linking by address is opt-in');
  assert.equal(c.localLogin, 'break-glass');
  assert.deepEqual(c.breakGlassUsers, ['admin']);

  const fromEnv = loadConfig({
    env: {
      BACKPLANE_OIDC_PROVIDERS: JSON.stringify([
        { name: 'pocket', displayName: 'Pocket ID', issuer: 'http://localhost:1411', clientId: 'c', scopes: ['email'] },
      ]),
      BACKPLANE_LOCAL_LOGIN: 'all',
    },
    cwd,
  });
  assert.deepEqual(
    fromEnv.oidcProviders.map((x) => [x.name, x.clientSecret, x.scopes]),
    [['pocket', undefined, ['openid', 'email']]],
    'the environment wins; openid is always asked for; no secret is a public client',
  );
  assert.equal(fromEnv.localLogin, 'all');
  assert.deepEqual(loadConfig({ env: {}, cwd: await tempDir(t) }).oidcProviders, [], 'none by default');
});

test('single sign-on: a bad provider or break-glass setting stops the start with the field named', async (t) => {
  const cwd = await tempDir(t);
  const providers = (list: unknown[]) => () =>
    loadConfig({ env: { BACKPLANE_OIDC_PROVIDERS: JSON.stringify(list) }, cwd });
  const ok = { name: 'corp', displayName: 'Corp', issuer: 'https://id.example.com', clientId: 'c' };
  assert.throws(
    () => loadConfig({ env: { BACKPLANE_OIDC_PROVIDERS: '{' }, cwd }),
    /BACKPLANE_OIDC_PROVIDERS: must be a JSON/,
  );
  assert.throws(providers([{ ...ok, issuer: 'http://id.example.com' }]), /\[0\]\.issuer must use https/);
  assert.throws(providers([{ ...ok, clientId: undefined }]), /\[0\]\.clientId is required/);
  assert.throws(providers([{ ...ok, name: 'Corp ID' }]), /\[0\]\.name must be/);
  assert.throws(providers([ok, ok]), /\[1\]\.name: "corp" is used twice/);
  assert.throws(providers([{ ...ok, clientSecert: 'x' }]), /unknown field "clientSecert"/);
  assert.throws(providers([{ ...ok, roleMap: { ops: 'operator' } }]), /roleMap needs roleClaim/);
  assert.throws(
    providers([{ ...ok, roleClaim: 'groups', roleMap: { ops: 'root' } }]),
    /must be admin, operator or viewer/,
  );
  assert.throws(
    () => loadConfig({ env: { BACKPLANE_LOCAL_LOGIN: 'break-glass' }, cwd }),
    /needs BACKPLANE_BREAK_GLASS_USERS/,
  );
  assert.throws(() => loadConfig({ env: { BACKPLANE_LOCAL_LOGIN: 'none' }, cwd }), /must be all or break-glass/);
  await mkdir(join(cwd, 'config'));
  await writeFile(join(cwd, 'config', 'backplane.yaml'), 'oidc:\n  provider: []\n');
  assert.throws(() => loadConfig({ env: {}, cwd }), /unknown key "oidc.provider"/);
});
