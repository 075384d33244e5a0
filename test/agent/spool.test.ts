import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { resetSpools, spoolDir, spoolPath, SpoolStorage } from '../../agent/spool.ts';

async function withTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bp-agent-spool-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('put writes the stream to the spool file and reports its size', () =>
  withTemp(async (dir) => {
    await resetSpools(dir);
    const spool = new SpoolStorage(spoolPath(dir, 'record-1'));
    const data = Buffer.from('stored-format bytes '.repeat(5000));
    const res = await spool.put('task/key', Readable.from([data.subarray(0, 1000), data.subarray(1000)]));
    assert.equal(res.size, data.length);
    assert.deepEqual(await readFile(spool.path), data);
  }));

test('a failing stream rejects and leaves no file', () =>
  withTemp(async (dir) => {
    await resetSpools(dir);
    const spool = new SpoolStorage(spoolPath(dir, 'record-2'));
    async function* broken(): AsyncGenerator<Buffer> {
      yield Buffer.from('partial');
      throw new Error('source broke');
    }
    await assert.rejects(spool.put('k', Readable.from(broken())), /source broke/);
    assert.equal(existsSync(spool.path), false);
    assert.deepEqual(await readdir(spoolDir(dir)), []);
  }));

test('a stream of another length than meta.size rejects and leaves no file', () =>
  withTemp(async (dir) => {
    await resetSpools(dir);
    const spool = new SpoolStorage(spoolPath(dir, 'record-3'));
    await assert.rejects(spool.put('k', Readable.from([Buffer.from('abc')]), { size: 4 }), /expected 4/);
    assert.equal(existsSync(spool.path), false);
  }));

test('reads are unsupported; resetSpools clears leftovers', () =>
  withTemp(async (dir) => {
    await resetSpools(dir);
    const spool = new SpoolStorage(spoolPath(dir, 'x'));
    await assert.rejects(spool.get(), /does not support get/);
    await assert.rejects(spool.stat(), /does not support stat/);
    await writeFile(join(spoolDir(dir), 'left-by-a-killed-agent.spool'), 'x');
    await resetSpools(dir);
    assert.deepEqual(await readdir(spoolDir(dir)), []);
  }));
