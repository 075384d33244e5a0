import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { ConfigError, loadConfig } from '../../core/config/load-config.ts';
import { buildApp } from '../../core/app.ts';
import { masterKeyCheck } from '../../core/security/key-check.ts';

/** A second master on the first one's database, with its own data dir and what `config` adds. */
async function secondMaster(
  t: Parameters<typeof tempDir>[0],
  databaseUrl: string,
  config: Record<string, unknown> = {},
) {
  const dataDir = await tempDir(t);
  const app = await buildApp(
    loadConfig({
      env: {},
      cwd: dataDir,
      overrides: { dataDir, databaseUrl, logLevel: 'silent', tempSweepIntervalSeconds: 0, ...config },
    }),
    { logLevel: 'silent' },
  );
  t.after(() => app.close());
  return app;
}

test('a master whose keys differ from the ones its database was sealed with refuses to start, saying which', async (t) => {
  const first = await build(t);
  const token = await setupAdmin(first.app);
  const databaseUrl = first.config.databaseUrl;
  const secretKey = (await readFile(join(first.dataDir, 'secret.key'), 'utf8')).trim();
  const identityFile = join(first.dataDir, 'backup.agekey');

  await assert.rejects(
    secondMaster(t, databaseUrl),
    (err: Error) =>
      err instanceof ConfigError &&
      /master key .* not the one this database's secrets were sealed with/.test(err.message),
  );
  await assert.rejects(
    secondMaster(t, databaseUrl, { secretKey }),
    (err: Error) =>
      err instanceof ConfigError &&
      /age identity .* is for age1\w+, but this database's backups are encrypted for age1\w+/.test(err.message),
  );
  await assert.rejects(
    secondMaster(t, databaseUrl, { secretKey, ageIdentityFile: join(first.dataDir, 'missing.agekey') }),
    (err: Error) => err instanceof ConfigError && /BACKPLANE_AGE_IDENTITY_FILE .*missing\.agekey/.test(err.message),
  );

  const second = await secondMaster(t, databaseUrl, { secretKey, ageIdentityFile: identityFile });
  const profile = await call(second, 'GET', '/api/auth/profile', { token });
  assert.equal(profile.status, 200, "same keys: the second master serves the first one's session");

  // Remembered in the database, never shown: the settings API lists its allow-list only.
  const settings = await call(first.app, 'GET', '/api/settings', { token });
  assert.equal(settings.status, 200);
  assert.ok(!settings.body.includes(masterKeyCheck(Buffer.from(secretKey, 'hex'))));
  assert.ok(!settings.body.includes('system.'));
});

test('BACKPLANE_AGE_IDENTITY_FILE is read from the environment, relative to the working folder', () => {
  const config = loadConfig({ env: { BACKPLANE_AGE_IDENTITY_FILE: 'keys/backup.agekey' }, cwd: '/srv/backplane' });
  assert.equal(config.ageIdentityFile, '/srv/backplane/keys/backup.agekey');
  assert.equal(loadConfig({ env: {}, cwd: '/srv/backplane' }).ageIdentityFile, undefined);
});
