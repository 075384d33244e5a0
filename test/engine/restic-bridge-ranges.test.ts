import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageInstance } from '@backplane/plugin-api';
import { startLoopbackBridge } from '../../core/engine/index.ts';
import { endIgnoring, rangeIgnoring, wrapStorage } from './bridge-storages.ts';
import { localDisk, tempDir } from './helpers.ts';
import { resticOk } from './restic-cli.ts';
import { assertSameTree, PASSWORD, PREFIX, writeSourceTree } from './restic-fixtures.ts';

// restic reads pack headers and blobs with Range requests (0.14 sends one with every read).
// Over storages that get ranges wrong, the bridge must still hand it the right bytes: restic's
// check of every pack and a byte-identical restore say it did. Ranges matter to reads alone
// (a backup into a new repository reads back nothing but its config and key), so the repository
// is made and backed up once, and each storage reads that one folder.

const kinds: [string, (s: StorageInstance) => StorageInstance][] = [
  ['honours ranges', (s) => s],
  ['ignores ranges (streams from byte 0)', rangeIgnoring],
  ['ignores the end of a range', endIgnoring],
];

describe('restic over the REST bridge on storages that get ranges right and wrong', () => {
  let work: { dir: string; cleanup: () => Promise<void> };
  let store: string;
  let src: string;
  before(async () => {
    work = await tempDir('bp-restic-ranges-');
    store = join(work.dir, 'store');
    await mkdir(store);
    src = join(work.dir, 'src');
    await writeSourceTree(src, 9 * 1024 * 1024, 3);
    const bridge = await startLoopbackBridge({ storage: await localDisk(store), prefix: PREFIX, appendOnly: false });
    try {
      await resticOk(bridge.url, PASSWORD, ['init', '--repository-version', '2']);
      await resticOk(bridge.url, PASSWORD, ['backup', src]);
    } finally {
      await bridge.close();
    }
  });
  after(() => work?.cleanup());

  for (const [index, [name, wrap]] of kinds.entries()) {
    it(`on a storage that ${name}: checks every pack and restores byte for byte`, async () => {
      const ranges: { start: number; end?: number }[] = [];
      const inner = wrap(await localDisk(store));
      // Records the ranges the bridge asks for, before the storage does what it does with them.
      const storage = wrapStorage(inner, {
        get: (key, range, options) => {
          if (range) ranges.push(range);
          return inner.get(key, range, options);
        },
      });
      const bridge = await startLoopbackBridge({ storage, prefix: PREFIX, appendOnly: false });
      try {
        assert.match(await resticOk(bridge.url, PASSWORD, ['check', '--read-data']), /no errors were found/);
        const out = join(work.dir, `out-${index}`);
        await resticOk(bridge.url, PASSWORD, ['restore', 'latest', '--target', out]);
        await assertSameTree(join(out, src), src);
        // Longer than one byte: the bridge's own probe of a storage is a one-byte read.
        const inside = ranges.filter((r) => r.start > 0 && (r.end === undefined || r.end > r.start));
        assert.ok(inside.length > 0, 'restic read slices that start inside a pack');
      } finally {
        await bridge.close();
      }
    });
  }
});
