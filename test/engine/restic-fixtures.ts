import assert from 'node:assert/strict';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { seededRandom } from '../helpers/seeded-random.ts';
import { describeTree } from './helpers.ts';

/** A folder for restic to back up, and the checks of what it restores. */

export const PASSWORD = 'correct horse battery staple';
export const PREFIX = 'repositories/task-3';

/** `size` bytes of seeded noise: incompressible, so restic's packs hold about that much. */
export function noise(size: number, seed: number): Buffer {
  const next = seededRandom(seed);
  const out = Buffer.alloc(size);
  for (let i = 0; i + 4 <= size; i += 4) out.writeUInt32LE(Math.floor(next() * 2 ** 32), i);
  for (let i = size - (size % 4); i < size; i++) out[i] = Math.floor(next() * 256);
  return out;
}

/**
 * A small tree with what restore must keep: a large file (several packs' worth of chunks), many
 * small ones, an empty one, an executable, a symlink and nested folders.
 */
export async function writeSourceTree(dir: string, bigBytes: number, seed = 1): Promise<void> {
  await mkdir(join(dir, 'docs', 'notes'), { recursive: true });
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'big.bin'), noise(bigBytes, seed));
  await writeFile(join(dir, 'docs', 'readme.txt'), 'The source of a restic test.\n'.repeat(100));
  for (let i = 0; i < 20; i++) await writeFile(join(dir, 'docs', 'notes', `n${i}.txt`), `note ${i}\n`.repeat(i * 10));
  await writeFile(join(dir, 'empty'), '');
  await writeFile(join(dir, 'bin', 'tool'), '#!/bin/sh\necho tool\n');
  await chmod(join(dir, 'bin', 'tool'), 0o755);
  await symlink('docs/readme.txt', join(dir, 'readme'));
}

/** Same entries, types, modes, contents and link targets. */
export async function assertSameTree(actual: string, expected: string): Promise<void> {
  assert.deepEqual(await describeTree(actual), await describeTree(expected));
}

/** The summary line of `restic backup --json`. */
export interface BackupSummary {
  files_new: number;
  files_changed: number;
  files_unmodified: number;
  data_added: number;
  snapshot_id: string;
}

export function backupSummary(stdout: string): BackupSummary {
  const line = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { message_type?: string })
    .find((m) => m.message_type === 'summary');
  assert.ok(line, `no summary in restic's output:\n${stdout.slice(-2000)}`);
  return line as unknown as BackupSummary;
}
