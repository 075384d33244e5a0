import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../helpers/build.ts';

const SCRIPT = join(import.meta.dirname, '../../scripts/test-prerequisites.sh');
const BASH = '/bin/bash';
const TOOLS = [
  'rclone',
  'restic',
  'zstd',
  'age',
  'age-keygen',
  'pg_dump',
  'psql',
  'pg_isready',
  'mysqldump',
  'mysql',
  'mysqladmin',
  'chromium',
];

/**
 * A bin folder holding stand-ins for the system tools (the script only asks whether they exist,
 * `rclone version`, and whether the servers answer), so the script's decisions can be checked
 * without uninstalling anything. `except` leaves tools out; `scripts` replaces some.
 */
async function fakeBin(
  t: TestContext,
  options: { except?: string[]; scripts?: Record<string, string> } = {},
): Promise<string> {
  const dir = await tempDir(t, 'backplane-prereq-bin-');
  const scripts: Record<string, string> = { rclone: 'echo "rclone v1.60.1-DEV"', ...options.scripts };
  for (const tool of TOOLS) {
    if (options.except?.includes(tool)) continue;
    await writeFile(join(dir, tool), `#!/bin/sh\n${scripts[tool] ?? 'exit 0'}\n`);
    await chmod(join(dir, tool), 0o755);
  }
  return dir;
}

/** The script's environment: only `bin` on PATH, and Chromium (looked for by its path, not on the PATH) in `bin` too. */
const fakeEnv = (bin: string) => ({ PATH: bin, BACKPLANE_TEST_CHROMIUM: join(bin, 'chromium') });

/** Runs the script with only `bin` on PATH and installing forbidden, in an otherwise empty environment. */
function run(bin: string, env: Record<string, string> = {}) {
  const res = spawnSync(BASH, [SCRIPT], {
    env: { ...fakeEnv(bin), BACKPLANE_TEST_NO_INSTALL: '1', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

test('the prerequisites script parses (bash -n)', () => {
  const res = spawnSync(BASH, ['-n', SCRIPT], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
});

test('every tool present and recent enough, servers answering: silent success', async (t) => {
  const res = run(await fakeBin(t));
  assert.deepEqual(res, { status: 0, stdout: '', stderr: '' });
});

test('missing rclone and age, installing forbidden: stops with one message naming the packages', async (t) => {
  const res = run(await fakeBin(t, { except: ['rclone', 'age', 'age-keygen'] }));
  assert.equal(res.status, 1);
  assert.equal(res.stdout, '');
  const lines = res.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, res.stderr);
  assert.match(lines[0]!, /missing: rclone age\./);
  assert.match(lines[0]!, /apt-get install rclone age;/);
  assert.match(lines[0]!, /rclone must be 1\.57 or newer/);
  assert.doesNotMatch(lines[0]!, /zstd|postgresql-client|mariadb-client/, 'only what is missing is named');
});

test('a missing tool with no way to install it (no apt-get) is reported even when installing is allowed', async (t) => {
  const bin = await fakeBin(t, { except: ['mysqldump'] });
  const res = spawnSync(BASH, [SCRIPT], { env: fakeEnv(bin), encoding: 'utf8', timeout: 30_000 });
  assert.equal(res.status, 1);
  assert.match(res.stderr, /missing: mariadb-client\./);
  assert.equal(res.stderr.trimEnd().split('\n').length, 1, res.stderr);
});

test('no Chromium at the path the browser tests launch: the chromium package is named', async (t) => {
  const res = run(await fakeBin(t, { except: ['chromium'] }));
  assert.equal(res.status, 1);
  assert.equal(res.stderr.trimEnd().split('\n').length, 1, res.stderr);
  assert.match(res.stderr, /missing: chromium\./);
  assert.match(res.stderr, /apt-get install chromium;/);
  // A chromium on the PATH is not the one the tests launch (test/helpers/browser.ts uses the path).
  const elsewhere = await fakeBin(t);
  assert.equal(run(elsewhere, { BACKPLANE_TEST_CHROMIUM: join(elsewhere, 'no-such-chromium') }).status, 1);
});

test('an rclone older than 1.57 is named with the version it needs', async (t) => {
  const res = run(await fakeBin(t, { scripts: { rclone: 'echo "rclone v1.53.3"' } }));
  assert.equal(res.status, 1);
  assert.equal(
    res.stderr.trim(),
    "test prerequisites: rclone 1.53 is too old; install rclone 1.57 or newer (Debian 12's 1.60 will do).",
  );
  assert.equal(run(await fakeBin(t, { scripts: { rclone: 'echo "rclone v1.57.0"' } })).status, 0);
  assert.equal(run(await fakeBin(t, { scripts: { rclone: 'echo "rclone v2.0.0"' } })).status, 0);
});

test('database servers that do not answer: a note without BACKPLANE_REQUIRE_DATABASES, an error with it', async (t) => {
  const bin = await fakeBin(t, { scripts: { pg_isready: 'exit 2', mysqladmin: 'exit 1' } });
  const relaxed = run(bin);
  assert.equal(relaxed.status, 0);
  assert.match(relaxed.stderr, /PostgreSQL on 127\.0\.0\.1:5432 is not running: its tests will be skipped/);
  assert.match(relaxed.stderr, /MariaDB on 127\.0\.0\.1:3306 is not running: its tests will be skipped/);
  const strict = run(bin, { BACKPLANE_REQUIRE_DATABASES: '1' });
  assert.equal(strict.status, 1);
  assert.equal(strict.stderr.trimEnd().split('\n').length, 1, strict.stderr);
  assert.match(
    strict.stderr,
    /PostgreSQL on 127\.0\.0\.1:5432 is required \(BACKPLANE_REQUIRE_DATABASES=1\) but not running/,
  );
  // A server of one's own (a URL given) is not the script's business.
  assert.equal(
    run(bin, {
      BACKPLANE_REQUIRE_DATABASES: '1',
      BACKPLANE_TEST_PG_URL: 'postgres://x',
      BACKPLANE_TEST_MYSQL_URL: 'mysql://x',
    }).status,
    0,
  );
});
