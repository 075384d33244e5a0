import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { runDump, runRestore, type ToolRun } from '@backplane/plugin-api';
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
