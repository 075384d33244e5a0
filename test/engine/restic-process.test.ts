import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Restic, ResticError, resticArgs, resticEnv } from '../../core/engine/index.ts';
import { childrenNamed, PASSWORD, repositoryFixture } from './restic-fixture.ts';
import { q, sh, tempDir } from './helpers.ts';

// How restic is run: what other users and processes can see of it, and how it is stopped.

test('the password is in neither argv nor the environment; the environment holds only what restic needs', async () => {
  const { dir, repoPath, restic, cleanup } = await repositoryFixture();
  process.env.BP_TEST_CANARY = 'inherited secret';
  try {
    await sh(`head -c 20000000 /dev/urandom > ${q(join(dir, 'big.bin'))}`);
    let seen: { cmdline: string; environ: string } | undefined;
    await restic.backup([join(dir, 'big.bin')], {
      onProgress: () => {
        if (seen) return;
        const [pid] = childrenNamed('restic');
        assert.ok(pid, 'restic is running');
        seen = {
          // read while restic runs: the callback is synchronous, so restic cannot have exited yet
          cmdline: readFileSync(`/proc/${pid}/cmdline`, 'latin1'),
          environ: readFileSync(`/proc/${pid}/environ`, 'latin1'),
        };
      },
    });
    assert.ok(seen);
    assert.ok(!seen.cmdline.includes(PASSWORD));
    assert.ok(!seen.environ.includes(PASSWORD));
    assert.ok(!seen.cmdline.includes(repoPath), 'the repository is not in argv');
    assert.match(seen.cmdline, /--password-command=sh -c 'exec cat <&3'/);
    const keys = seen.environ
      .split('\0')
      .filter(Boolean)
      .map((kv) => kv.slice(0, kv.indexOf('=')))
      .sort();
    const inherited = ['HOME', 'TMPDIR'].filter((k) => process.env[k]);
    assert.deepEqual(keys, ['LC_ALL', 'PATH', 'RESTIC_REPOSITORY', ...inherited].sort(), 'BP_TEST_CANARY stays out');
    assert.ok(seen.environ.includes(`RESTIC_REPOSITORY=${repoPath}\0`));
  } finally {
    delete process.env.BP_TEST_CANARY;
    await cleanup();
  }
});

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

test('abort: restic gets SIGINT, removes its lock and is gone before the call rejects', async () => {
  const { dir, repoPath, cleanup } = await repositoryFixture();
  try {
    await sh(`head -c 100000000 /dev/urandom > ${q(join(dir, 'big.bin'))}`);
    const controller = new AbortController();
    const restic = new Restic({ repository: repoPath, password: PASSWORD, signal: controller.signal });
    const reason = new Error('stopped by the test');
    const started = Date.now();
    await assert.rejects(
      restic.backup([join(dir, 'big.bin')], { onProgress: () => controller.abort(reason) }),
      (err) => err === reason,
    );
    assert.ok(Date.now() - started < 5000, 'restic stopped well within the grace');
    assert.deepEqual(childrenNamed('restic'), []);
    assert.deepEqual(await readdir(join(repoPath, 'locks')), [], 'restic removed its lock on SIGINT');
    await assert.rejects(restic.snapshots(), (err) => err === reason, 'an aborted signal starts nothing');
  } finally {
    await cleanup();
  }
});

test('abort: a restic that ignores SIGINT is killed after the grace', async () => {
  const { dir, cleanup } = await tempDir('bp-restic-');
  try {
    const fake = join(dir, 'stuck-restic');
    await writeFile(fake, "#!/bin/sh\ntrap '' INT\nexec sleep 30\n", { mode: 0o755 });
    const controller = new AbortController();
    const restic = new Restic({
      repository: join(dir, 'repo'),
      password: PASSWORD,
      signal: controller.signal,
      program: { command: fake, version: '0.14.0' },
      killGraceMs: 300,
    });
    const call = restic.snapshots();
    await sleep(200);
    assert.equal(childrenNamed('sleep').length, 1);
    const started = Date.now();
    controller.abort();
    await assert.rejects(call, /aborted/);
    const took = Date.now() - started;
    assert.ok(took >= 250 && took < 3000, `killed after ${took} ms`);
    assert.deepEqual(childrenNamed('sleep'), []);
  } finally {
    await cleanup();
  }
});

test('locks: a held lock is "locked"; a killed holder leaves a stale lock that unlock removes', async () => {
  const { dir, repoPath, restic, cleanup } = await repositoryFixture();
  try {
    // a second restic that holds the repository's (shared) lock for as long as its stdin is open
    const holder = spawn('restic', ['--no-cache', '-r', repoPath, 'backup', '--stdin', '--stdin-filename', 'held'], {
      env: { PATH: process.env.PATH ?? '', RESTIC_PASSWORD: PASSWORD },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const locks = join(repoPath, 'locks');
    for (let i = 0; (await readdir(locks)).length === 0; i++) {
      assert.ok(i < 200, 'the holder took its lock');
      await sleep(50);
    }
    await assert.rejects(restic.prune(), (err: unknown) => {
      assert.ok(err instanceof ResticError);
      assert.equal(err.kind, 'locked');
      assert.equal(err.exitCode, 1);
      assert.match(err.message, new RegExp(`repository is already locked by PID ${holder.pid} on `));
      assert.match(err.message, /the `unlock` command can be used to remove stale locks/);
      return true;
    });
    await assert.rejects(restic.check(), { kind: 'locked' }, 'check takes the exclusive lock too');
    await writeFile(join(dir, 'a.txt'), 'a');
    await restic.backup([join(dir, 'a.txt')]); // a backup shares the lock

    holder.kill('SIGKILL');
    await once(holder, 'close');
    assert.equal((await readdir(locks)).length, 1, 'SIGKILL leaves the lock behind');
    await assert.rejects(restic.prune(), { kind: 'locked' }, 'a stale lock still blocks an exclusive lock');
    await restic.unlock();
    assert.deepEqual(await readdir(locks), []);
    await restic.prune();
  } finally {
    await cleanup();
  }
});

test('a reader that stops early (ls, dump) stops restic', async () => {
  const { dir, repoPath, restic, cleanup } = await repositoryFixture();
  try {
    const big = join(dir, 'big.bin');
    await sh(`head -c 30000000 /dev/urandom > ${q(big)}`);
    const { snapshotId } = await restic.backup([big]);
    for await (const node of restic.ls(snapshotId)) {
      assert.equal(node.type, 'dir');
      break;
    }
    assert.deepEqual(childrenNamed('restic'), []);
    assert.deepEqual(await readdir(join(repoPath, 'locks')), []);

    const partial = restic.dump(snapshotId, big);
    const [first] = (await once(partial, 'data')) as [Buffer];
    assert.ok(first.length > 0);
    assert.equal(childrenNamed('restic').length, 1, 'restic is still writing');
    partial.destroy();
    for (let i = 0; childrenNamed('restic').length > 0; i++) {
      assert.ok(i < 100, 'restic ended');
      await sleep(50);
    }
    assert.deepEqual(await readdir(join(repoPath, 'locks')), []);
  } finally {
    await cleanup();
  }
});
