import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { runDump, runRestore, toolEnv, toolStream, writeSecretFile, type ToolRun } from '@backplane/plugin-api';
import { dumpCompressor, zstdRawBytes } from '../../core/engine/stream/compression.ts';

const cat: ToolRun = {
  command: 'cat',
  args: [],
  env: { PATH: process.env.PATH ?? '' },
  secrets: [],
  classify: () => 'permanent',
};

test('runRestore refuses an input that already failed or closed instead of waiting on it forever', {
  timeout: 10_000,
}, async () => {
  const failed = new PassThrough();
  failed.on('error', () => undefined);
  failed.destroy(new Error('checksum mismatch'));
  await new Promise((r) => setImmediate(r));
  await assert.rejects(runRestore(cat, failed), /checksum mismatch/);

  const closed = new PassThrough();
  closed.destroy();
  await new Promise((r) => setImmediate(r));
  await assert.rejects(runRestore(cat, closed), /closed before/);
});

test('runRestore kills the tool when its input errors part-way, and succeeds on a clean end', {
  timeout: 10_000,
}, async () => {
  const input = new PassThrough();
  const pending = runRestore(cat, input);
  input.write('partial data');
  setTimeout(() => input.destroy(new Error('source broke')), 50);
  await assert.rejects(pending, /source broke/);
  await runRestore(cat, Readable.from([Buffer.from('all of it')]));
});

// ---- runDump with a compressor: the tool's stdout goes straight into the compressor -----------

const sh = (script: string): ToolRun => ({
  command: 'sh',
  args: ['-c', script],
  env: { PATH: process.env.PATH ?? '' },
  secrets: [],
  classify: () => 'permanent',
});
const zstd = dumpCompressor('zstd', 3, { ...process.env, BACKPLANE_ZSTD_BINARY: 'zstd' })!;

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

test('runDump with a compressor streams the compressed dump and its exact raw size', { timeout: 20_000 }, async () => {
  // 3 MiB of text with a marker at each end
  const dump = runDump(sh('echo first; yes "row of the dump" | head -c 3145728; echo; echo last'), zstd);
  assert.equal(dump.compressed, true);
  const compressed = await drain(dump.stream);
  await dump.done;
  const plain = zlib.zstdDecompressSync(compressed);
  assert.equal(dump.rawBytes?.(), plain.length);
  assert.ok(plain.length > 3_145_728);
  assert.ok(compressed.length < plain.length / 10);
  assert.match(plain.subarray(0, 6).toString(), /^first\n/);
  assert.match(plain.subarray(-5).toString(), /last\n$/);
});

test('runDump with a compressor never ends cleanly when the dump fails part-way', { timeout: 20_000 }, async () => {
  const dump = runDump(sh('yes "row" | head -c 1048576; echo "server closed the connection" >&2; exit 3'), zstd);
  const read = drain(dump.stream);
  await assert.rejects(read, /sh exited with 3: server closed the connection/);
  await assert.rejects(dump.done, /exited with 3/);
  assert.equal(dump.rawBytes?.(), undefined);
});

test('runDump with a compressor fails when the compressor fails or is missing, and stops the dump', {
  timeout: 20_000,
}, async () => {
  const started = Date.now();
  const failing = runDump(sh('yes "row" | head -c 1048576; sleep 30'), {
    command: 'sh',
    args: ['-c', 'head -c 10; exit 4'],
  });
  await assert.rejects(drain(failing.stream), /sh exited with 4/);
  await assert.rejects(failing.done, /exited with 4/);
  assert.ok(Date.now() - started < 15_000, 'the dump was killed, not waited for');

  const missing = runDump(sh('echo data'), { command: 'backplane-no-such-compressor', args: [] });
  await assert.rejects(drain(missing.stream), /backplane-no-such-compressor is not installed/);
  await assert.rejects(missing.done, /not installed/);
});

test('destroying a compressed dump stream kills both programs', { timeout: 20_000 }, async () => {
  const dump = runDump(sh('exec yes "row of an endless dump"'), zstd);
  for await (const chunk of dump.stream) {
    assert.ok((chunk as Buffer).length > 0);
    break; // destroys the stream
  }
  await assert.rejects(dump.done, /killed by SIG(TERM|KILL)|exited/);
});

test('the zstd report is read in bytes, and its absence is no size', () => {
  assert.equal(zstdRawBytes('/*stdin*\\            : 75.38%   (1667752 B => 1257156 B, /*stdout*\\) \n'), 1667752);
  assert.equal(zstdRawBytes('/*stdin*\\            : 75.38%   (  1.59 MiB =>   1.20 MiB, /*stdout*\\) \n'), undefined);
  assert.equal(zstdRawBytes(''), undefined);
});

// ---- what the programs are given: a tool's environment, credentials only to the tool, released after ---

/** The environment `env` prints, as a map. */
const envLines = (text: string) =>
  new Map(
    text
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

test('toolEnv keeps where programs are and the locale, nothing else; extra values are added', () => {
  const parent = {
    PATH: '/usr/bin',
    HOME: '/home/b',
    TMPDIR: '/t',
    LANG: 'C.UTF-8',
    LC_TIME: 'C',
    TZ: 'UTC',
    BACKPLANE_SECRET_KEY: 'key',
    PGPASSWORD: 'pw',
    MYSQL_PWD: 'pw',
    TAR_OPTIONS: '--exclude=*',
    ZSTD_CLEVEL: '19',
    NODE_OPTIONS: '--inspect',
    AWS_SECRET_ACCESS_KEY: 'aws',
  };
  assert.deepEqual(toolEnv(parent, { LC_ALL: 'C', UNSET: undefined }), {
    PATH: '/usr/bin',
    HOME: '/home/b',
    TMPDIR: '/t',
    LANG: 'C.UTF-8',
    LC_TIME: 'C',
    TZ: 'UTC',
    LC_ALL: 'C',
  });
});

test("a dump's compressor gets a tool's environment, none of the dump tool's connection variables", {
  timeout: 10_000,
}, async () => {
  const tool: ToolRun = {
    ...sh('true'),
    env: { PATH: process.env.PATH ?? '', PGPASSFILE: '/scratch/secret-x/pgpass', PGPASSWORD: 'hunter2-secret' },
  };
  // `env` as the compressor prints what it was given into the dump's stream.
  const dump = runDump(tool, { command: 'env', args: [] });
  const printed = envLines((await drain(dump.stream)).toString());
  await dump.done;
  assert.equal(printed.get('PATH'), process.env.PATH);
  assert.deepEqual(
    [...printed.keys()].filter((name) => name.startsWith('PG')),
    [],
  );
});

test('toolStream runs a program in a tool environment by default: nothing of Backplane’s own', {
  timeout: 10_000,
}, async (t) => {
  process.env.BACKPLANE_TEST_CANARY = 'canary-value';
  t.after(() => delete process.env.BACKPLANE_TEST_CANARY);
  const env = toolStream('env', []);
  env.end();
  const printed = envLines((await drain(env)).toString());
  assert.equal(printed.get('PATH'), process.env.PATH);
  assert.equal(printed.get('BACKPLANE_TEST_CANARY'), undefined);
});

test('release runs once, when the programs of a dump or restore ended, however they ended', {
  timeout: 20_000,
}, async () => {
  const counted = (run: ToolRun) => {
    let calls = 0;
    const withRelease: ToolRun = {
      ...run,
      release: async () => {
        calls++;
      },
    };
    return { run: withRelease, calls: () => calls };
  };
  const ok = counted(sh('echo dump'));
  const good = runDump(ok.run, zstd);
  await drain(good.stream);
  await good.done;
  assert.equal(ok.calls(), 1, 'after a dump that succeeded');

  const failing = counted(sh('exit 3'));
  const failed = runDump(failing.run);
  failed.stream.on('error', () => undefined).resume();
  await assert.rejects(failed.done);
  assert.equal(failing.calls(), 1, 'after a dump that failed');

  const missing = counted({ ...sh(''), command: 'backplane-no-such-tool' });
  const absent = runDump(missing.run, zstd);
  absent.stream.on('error', () => undefined).resume();
  await assert.rejects(absent.done, /not installed/);
  assert.equal(missing.calls(), 1, 'after a tool that never started');

  const endless = counted(sh('exec yes "row"'));
  const stopped = runDump(endless.run, zstd);
  for await (const _ of stopped.stream) break; // the reader stops early: both programs are killed
  await assert.rejects(stopped.done);
  assert.equal(endless.calls(), 1, 'after a reader that stopped early');

  const restored = counted(cat);
  await runRestore(restored.run, Readable.from([Buffer.from('all of it')]));
  assert.equal(restored.calls(), 1, 'after a restore');
  const broken = counted(cat);
  const input = new PassThrough();
  const pending = runRestore(broken.run, input);
  input.destroy(new Error('source broke'));
  await assert.rejects(pending, /source broke/);
  assert.equal(broken.calls(), 1, 'after a restore whose input failed');
  const refused = counted(cat);
  const closed = new PassThrough();
  closed.destroy();
  await new Promise((r) => setImmediate(r));
  await assert.rejects(runRestore(refused.run, closed), /closed before/);
  assert.equal(refused.calls(), 1, 'after a restore that never started');
});

test('writeSecretFile: a 0600 file alone in a new 0700 folder, gone with its folder on remove', async (t) => {
  const parent = join(await mkdtemp(join(tmpdir(), 'bp-secret-file-')), 'not-yet');
  t.after(() => rm(dirname(parent), { recursive: true, force: true }));
  const first = await writeSecretFile(parent, 'pgpass', '*:*:*:*:pw\n');
  const second = await writeSecretFile(parent, 'pgpass', 'other\n');
  assert.notEqual(dirname(first.path), dirname(second.path), 'each gets a folder of its own');
  assert.equal((await stat(parent)).mode & 0o777, 0o700, 'a missing parent is created private');
  assert.equal((await stat(dirname(first.path))).mode & 0o777, 0o700);
  assert.equal((await stat(first.path)).mode & 0o777, 0o600);
  assert.equal(await readFile(first.path, 'utf8'), '*:*:*:*:pw\n');
  await first.remove();
  await first.remove();
  assert.deepEqual(await readdir(parent), [basename(dirname(second.path))]);
  await second.remove();
  assert.deepEqual(await readdir(parent), []);
});
