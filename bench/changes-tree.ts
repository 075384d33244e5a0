import { createCipheriv, createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { seededRandom } from '../test/helpers/seeded-random.ts';
import { MiB, textGenerator } from './backup-files.ts';

/**
 * The tree of the backup-changes benchmark and its change set, both deterministic: the same
 * seed gives the same names, sizes and bytes, so each backup mode sees identical changes.
 */

/** About 5,000 files per GiB; 85% of the bytes random (incompressible), 15% text (3-4x with zstd). */
const FILES_PER_GIB = 5000;
const TEXT_SHARE = 0.15;
/** One file in four is text: text files are smaller on average than the random ones. */
const TEXT_FILES = 0.25;
const PER_FOLDER = 50;

export interface ChangesTree {
  /** Paths relative to the root, in creation order. */
  files: string[];
  bytes: number;
  textBytes: number;
  /** Mean size of a random file, for the files the change set adds. */
  meanRandom: number;
}

export interface ChangeSet {
  modified: string[];
  deleted: string[];
  added: string[];
  /** Bytes written by the change (modified and added files). */
  bytes: number;
}

/**
 * Bytes of an AES-256-CTR keystream keyed by `label`: incompressible, and the same for the same
 * label (crypto.randomBytes would make the three copies of a change differ).
 */
async function writeSeeded(path: string, bytes: number, label: string): Promise<void> {
  const key = createHash('sha256').update(`backplane-bench:${label}`).digest();
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  const zeros = Buffer.alloc(4 * MiB);
  await pipeline(
    Readable.from(
      (function* generate() {
        for (let sent = 0; sent < bytes; sent += zeros.length)
          yield cipher.update(zeros.subarray(0, Math.min(zeros.length, bytes - sent)));
      })(),
    ),
    createWriteStream(path),
  );
}

/** Sizes spread over three decades (log-uniform), scaled so that they add up to `total`. */
function spread(rnd: () => number, count: number, total: number): number[] {
  const weights = Array.from({ length: count }, () => 1000 ** rnd());
  const sum = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(1, Math.floor((w / sum) * total)));
  sizes[0]! += total - sizes.reduce((a, b) => a + b, 0); // rounding: the first file takes the rest
  return sizes;
}

/** About `bytes` in `root`: text and random files shuffled together into folders of 50, two levels deep. */
export async function generateChangesTree(root: string, bytes: number, seed = 1): Promise<ChangesTree> {
  const rnd = seededRandom(seed ^ 0xc4a9);
  const text = textGenerator(seed);
  const count = Math.max(200, Math.round((FILES_PER_GIB * bytes) / (1024 * MiB)));
  const textCount = Math.round(count * TEXT_FILES);
  const textTotal = Math.round(bytes * TEXT_SHARE);
  const textSizes = spread(rnd, textCount, textTotal);
  const randomSizes = spread(rnd, count - textCount, bytes - textTotal);
  const kinds = [...textSizes.map((s) => ['text', s] as const), ...randomSizes.map((s) => ['random', s] as const)];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  const files: string[] = [];
  let pending: Promise<void>[] = [];
  for (const [i, [kind, size]] of kinds.entries()) {
    const folder = `group-${Math.floor(i / (PER_FOLDER * 10))}/set-${Math.floor(i / PER_FOLDER) % 10}`;
    if (i % PER_FOLDER === 0) await mkdir(join(root, folder), { recursive: true });
    const name = `${folder}/file-${i}.${kind === 'text' ? 'log' : 'bin'}`;
    files.push(name);
    // text is generated here, in order, so the generator's sequence (and the tree) stays the same
    pending.push(
      kind === 'text'
        ? writeFile(join(root, name), text(size))
        : writeSeeded(join(root, name), size, `${seed}:${name}`),
    );
    if (pending.length >= 16) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  return {
    files,
    bytes,
    textBytes: textTotal,
    meanRandom: Math.round((bytes - textTotal) / (count - textCount)),
  };
}

/**
 * The change: 1% of the files rewritten in place with new random bytes of the same size, `deletes`
 * others removed and `adds` new random files put beside them. Chosen by `seed` from the tree's list.
 */
export async function applyChanges(
  root: string,
  tree: ChangesTree,
  seed = 2,
  { deletes = 10, adds = 10 } = {},
): Promise<ChangeSet> {
  const rnd = seededRandom(seed ^ 0x7e57);
  const order = [...tree.files];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const modifiedCount = Math.max(1, Math.round(tree.files.length * 0.01));
  const modified = order.slice(0, modifiedCount);
  const deleted = order.slice(modifiedCount, modifiedCount + deletes);
  let written = 0;
  for (const name of modified) {
    const { size } = await stat(join(root, name));
    await writeSeeded(join(root, name), size, `${seed}:changed:${name}`);
    written += size;
  }
  for (const name of deleted) await rm(join(root, name));
  const added: string[] = [];
  for (let k = 0; k < adds; k++) {
    const beside = order[modifiedCount + deletes + k]!;
    const name = `${beside.slice(0, beside.lastIndexOf('/'))}/added-${k}.bin`;
    const size = Math.max(1, Math.round(tree.meanRandom * 2 * rnd()));
    await writeSeeded(join(root, name), size, `${seed}:added:${name}`);
    added.push(name);
    written += size;
  }
  return { modified, deleted, added, bytes: written };
}

/** Sum of the sizes of the files below `dir` (a repository's growth, without folder entries). */
export async function fileBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}
