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
// check of every pack and a byte-identical restore say it did.

const kinds: [string, (s: StorageInstance) => StorageInstance][] = [
  ['honours ranges', (s) => s],
  ['ignores ranges (streams from byte 0)', rangeIgnoring],
  ['ignores the end of a range', endIgnoring],
];

for (const [name, wrap] of kinds) {
  describe(`restic over the REST bridge on a storage that ${name}`, () => {
    let work: { dir: string; cleanup: () => Promise<void> };
    const ranges: { start: number; end?: number }[] = [];
    let storage: StorageInstance;
    before(async () => {
      work = await tempDir('bp-restic-ranges-');
      await mkdir(join(work.dir, 'store'));
      const inner = wrap(await localDisk(join(work.dir, 'store')));
      // Records the ranges the bridge asks for, before the storage does what it does with them.
      storage = wrapStorage(inner, {
        get: (key, range, options) => {
          if (range) ranges.push(range);
          return inner.get(key, range, options);
        },
      });
      await writeSourceTree(join(work.dir, 'src'), 9 * 1024 * 1024, 3);
    });
    after(() => work.cleanup());

    it('backs up, checks every pack and restores byte for byte', async () => {
      const bridge = await startLoopbackBridge({ storage, prefix: PREFIX, appendOnly: false });
      try {
        const src = join(work.dir, 'src');
        await resticOk(bridge.url, PASSWORD, ['init', '--repository-version', '2']);
        await resticOk(bridge.url, PASSWORD, ['backup', src]);
        assert.match(await resticOk(bridge.url, PASSWORD, ['check', '--read-data']), /no errors were found/);
        const out = join(work.dir, 'out');
        await resticOk(bridge.url, PASSWORD, ['restore', 'latest', '--target', out]);
        await assertSameTree(join(out, src), src);
        // Longer than one byte: the bridge's own probe of a storage is a one-byte read.
        const inside = ranges.filter((r) => r.start > 0 && (r.end === undefined || r.end > r.start));
        assert.ok(inside.length > 0, 'restic read slices that start inside a pack');
      } finally {
        await bridge.close();
      }
    });
  });
}
