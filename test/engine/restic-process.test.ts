import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resticArgs, resticEnv } from '../../core/engine/index.ts';

// How restic is run: what other users and processes can see of it, and how it is stopped.

test('arguments and environment: cache, CA file, source repository; env cannot carry a password', () => {
  const conn = { command: 'restic', repository: 'rest:http://127.0.0.1:1/t/', password: 'p' };
  assert.deepEqual(
    resticArgs({ ...conn, cacheDir: '/var/cache/bp', cacert: '/etc/ca.pem' }, { args: ['snapshots', '--json'] }),
    [
      "--password-command=sh -c 'exec cat <&3'",
      '--cache-dir=/var/cache/bp',
      '--cacert=/etc/ca.pem',
      'snapshots',
      '--json',
    ],
  );
  assert.deepEqual(resticArgs(conn, { args: ['copy', '--', 'abc'], from: { repository: '/r', password: 'q' } }), [
    "--password-command=sh -c 'exec cat <&3'",
    '--no-cache',
    'copy',
    "--from-password-command=sh -c 'exec cat <&4'",
    '--',
    'abc',
  ]);
  const env = resticEnv(
    { ...conn, env: { AWS_ACCESS_KEY_ID: 'k', LC_ALL: 'fr_FR.UTF-8' } },
    { repository: '/r', password: 'q' },
  );
  assert.equal(env.AWS_ACCESS_KEY_ID, 'k');
  assert.equal(env.LC_ALL, 'C', 'restic speaks the English the error kinds are matched in');
  assert.equal(env.RESTIC_FROM_REPOSITORY, '/r');
  assert.throws(() => resticEnv({ ...conn, env: { RESTIC_PASSWORD: 'x' } }), /RESTIC_PASSWORD is set by the driver/);
});
