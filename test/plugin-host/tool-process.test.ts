import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { runRestore, type ToolRun } from '@backplane/plugin-api';

const cat: ToolRun = { command: 'cat', args: [], env: { PATH: process.env.PATH ?? '' }, secrets: [], classify: () => 'permanent' };

test('runRestore refuses an input that already failed or closed instead of waiting on it forever', { timeout: 10_000 }, async () => {
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

test('runRestore kills the tool when its input errors part-way, and succeeds on a clean end', { timeout: 10_000 }, async () => {
  const input = new PassThrough();
  const pending = runRestore(cat, input);
  input.write('partial data');
  setTimeout(() => input.destroy(new Error('source broke')), 50);
  await assert.rejects(pending, /source broke/);
  await runRestore(cat, Readable.from([Buffer.from('all of it')]));
});
