import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageInstance } from '@backplane/plugin-api';
import { startLoopbackBridge, type LoopbackBridge } from '../../core/engine/index.ts';
import { httpUrl, send } from './bridge-http.ts';
import { sha256, wrapStorage } from './bridge-storages.ts';
import { filesUnder, tempDir } from './helpers.ts';
import { restic, resticOk, snapshotIds } from './restic-cli.ts';
import { assertSameTree, backupSummary, noise, PASSWORD, PREFIX, writeSourceTree } from './restic-fixtures.ts';

/**
 * The real restic, through the loopback bridge, on one storage: a repository's life from init
 * to prune. Each storage's test file runs it; the steps share one repository, in order.
 */

export interface ScenarioTarget {
  storage: StorageInstance;
  /** The local folder the storage writes its root to: the layout is checked there, and the stock restic opens it. */
  folder: string;
  cleanup: () => Promise<void>;
}

export interface ScenarioOptions {
  /** Size of the large file backed up; several MiB make several packs. */
  bigBytes: number;
  /**
   * 'all': the whole life. 'storage': only the steps whose outcome the storage decides (init,
   * two backups, a byte-identical restore, a check that reads every pack back, the bridge's
   * refusals of bad uploads), for a storage slower than the local disk. The others (the
   * config's version, listing, the stock restic opening the folder, append-only, forget and
   * prune) go through the same bridge code on any storage, so the local disk's run has them alone.
   */
  steps: 'all' | 'storage';
}

/** Every file of a repository in restic's default layout, relative to the repository's folder. */
const DEFAULT_LAYOUT = /^(config|data\/([0-9a-f]{2})\/\2[0-9a-f]{62}|(keys|locks|snapshots|index)\/[0-9a-f]{64})$/;

export function resticScenario(name: string, open: () => Promise<ScenarioTarget>, options: ScenarioOptions): void {
  describe(`restic ${name}`, () => {
    let target: ScenarioTarget;
    let work: { dir: string; cleanup: () => Promise<void> };
    let bridge: LoopbackBridge;
    let src: string;
    let repoFolder: string;
    const errors: unknown[] = [];
    const run = (args: string[], repository = bridge.url) => resticOk(repository, PASSWORD, args);
    const packs = async () => (await filesUnder(join(repoFolder, 'data'))).length;
    /** A step of the whole life only (options.steps). */
    const allOnly = (title: string, fn: () => Promise<void>): void => {
      if (options.steps === 'all') it(title, fn);
    };

    before(async () => {
      target = await open();
      work = await tempDir('bp-restic-work-');
      src = join(work.dir, 'src');
      await writeSourceTree(src, options.bigBytes);
      repoFolder = join(target.folder, PREFIX);
      bridge = await startLoopbackBridge({
        storage: target.storage,
        prefix: PREFIX,
        appendOnly: false,
        onError: (e) => errors.push(e),
      });
    });
    after(async () => {
      await bridge?.close();
      await target?.cleanup();
      await work?.cleanup();
    });

    it("init --repository-version 2 writes restic's default layout", async () => {
      await run(['init', '--repository-version', '2']);
      const files = await filesUnder(repoFolder);
      assert.deepEqual(
        files.map((f) => f.replace(/[0-9a-f]{64}/, 'ID')),
        ['config', 'keys/ID'],
      );
      const again = await restic(bridge.url, PASSWORD, ['init', '--repository-version', '2']);
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /config file already exists/);
    });

    // What the config holds is restic's; the storage's part, reading it back, every later step has.
    allOnly('the config it wrote reads back as repository version 2', async () => {
      const config = JSON.parse(await run(['cat', 'config'])) as { version: number };
      assert.equal(config.version, 2);
    });

    it('backs up, and a second backup adds little', async () => {
      const first = backupSummary(await run(['backup', '--json', src]));
      assert.ok(first.data_added >= options.bigBytes, `first backup added ${first.data_added} bytes`);
      await writeFile(join(src, 'docs', 'notes', 'n3.txt'), 'changed\n');
      await writeFile(join(src, 'docs', 'added.txt'), 'a new file\n');
      const second = backupSummary(await run(['backup', '--json', src]));
      assert.equal(second.files_new, 1);
      assert.equal(second.files_changed, 1);
      assert.ok(second.files_unmodified >= 20);
      assert.ok(second.data_added < 64 * 1024, `second backup added ${second.data_added} bytes`);
    });

    allOnly('lists both snapshots', async () => {
      const list = JSON.parse(await run(['snapshots', '--json'])) as { paths: string[] }[];
      assert.equal(list.length, 2);
      for (const s of list) assert.deepEqual(s.paths, [src]);
    });

    it('restores the latest snapshot byte for byte', async () => {
      const out = join(work.dir, 'restored');
      await run(['restore', 'latest', '--target', out]);
      await assertSameTree(join(out, src), src);
    });

    it('check --read-data-subset=100% reads every pack back and finds no error', async () => {
      const output = await run(['check', '--read-data-subset=100%']);
      assert.match(output, /no errors were found/);
    });

    allOnly(
      "keeps every file where restic's default layout puts it, so the stock restic opens the folder",
      async () => {
        for (const file of await filesUnder(repoFolder)) assert.match(file, DEFAULT_LAYOUT);
        const ids = await snapshotIds(bridge.url, PASSWORD);
        assert.deepEqual(await snapshotIds(repoFolder, PASSWORD), ids);
        // restic's rclone backend (`rclone serve restic` on the folder) reads the same layout.
        assert.deepEqual(await snapshotIds(`rclone:${repoFolder}`, PASSWORD), ids);
        assert.match(await run(['check', '--read-data'], repoFolder), /no errors were found/);
      },
    );

    it('refuses to replace a file, and an upload whose content is not its name, leaving nothing', async () => {
      const url = httpUrl(bridge);
      const [snapshot] = await filesUnder(join(repoFolder, 'snapshots'));
      const original = await readFile(join(repoFolder, 'snapshots', snapshot!));
      const replace = await send(url, `${url.pathname}snapshots/${snapshot}`, {
        method: 'POST',
        body: Buffer.from('{}'),
      });
      assert.equal(replace.status, 403);
      assert.ok((await readFile(join(repoFolder, 'snapshots', snapshot!))).equals(original));
      const before = await filesUnder(target.folder);
      const bytes = noise(300_000, 99);
      const liar = sha256(Buffer.concat([bytes, Buffer.from('x')]));
      const wrong = await send(url, `${url.pathname}data/${liar}`, { method: 'POST', body: bytes });
      assert.equal(wrong.status, 400);
      assert.deepEqual(await filesUnder(target.folder), before, 'nothing stored, not even a temporary');
    });

    it('serves nothing outside the repository, whatever the path', async () => {
      const url = httpUrl(bridge);
      const config = await readFile(join(repoFolder, 'config'));
      const token = url.pathname.slice(0, -1);
      for (const path of [
        `${token}/../${token.slice(1)}/config`,
        `${token}/data/../config`,
        `${token}/keys/..%2fconfig`,
        `${token}/%2e%2e/%2e%2e/etc/passwd`,
        `${token}/data/..%2f..%2f..%2fconfig`,
        `${token}//config`,
        `${token}/./config`,
        `/config`,
        `/../${token.slice(1)}/config`,
      ]) {
        const reply = await send(url, path);
        assert.ok(reply.status === 404 || reply.status === 400, `${path}: ${reply.status}`);
        assert.ok(!reply.body.equals(config));
      }
    });

    allOnly('append-only: a backup works, forgetting a snapshot fails and keeps it', async () => {
      // Every key the append-only bridge deletes: only restic's locks may go.
      const deleted: string[] = [];
      const storage = wrapStorage(target.storage, {
        delete: (key) => {
          deleted.push(key);
          return target.storage.delete(key);
        },
      });
      const appendOnly = await startLoopbackBridge({ storage, prefix: PREFIX, appendOnly: true });
      try {
        const [oldest] = await snapshotIds(bridge.url, PASSWORD);
        await resticOk(appendOnly.url, PASSWORD, ['backup', src]);
        // restic 0.14 retries a refused DELETE ten times (about 45 s) before it gives up, and
        // reports each refusal as it comes: once it reports the bridge's 403 for this snapshot,
        // restic is stopped (SIGINT, so it removes its lock) and the repository is looked at.
        const refused = new RegExp(`Remove\\(<snapshot/${oldest!.slice(0, 10)}>\\) returned error.*\\(403\\)`);
        const forget = await restic(appendOnly.url, PASSWORD, ['forget', oldest!], {
          interruptWhen: (stderr) => refused.test(stderr),
        });
        assert.notEqual(forget.code, 0, 'restic forget must fail');
        assert.match(forget.stderr, /403/);
        assert.match(forget.stderr, refused, 'the bridge refused to delete that very snapshot');
        const ids = await snapshotIds(bridge.url, PASSWORD);
        assert.ok(ids.includes(oldest!), 'the snapshot is still there');
        assert.equal(ids.length, 3);
        // restic's own locks are deleted even so: an append-only repository does not fill with them.
        assert.deepEqual(await filesUnder(join(repoFolder, 'locks')).catch(() => []), []);
        assert.ok(deleted.length > 0, 'restic deleted its locks');
        for (const key of deleted)
          assert.match(key, /\/locks\/[0-9a-f]{64}$/, 'nothing but a lock reached the storage');
      } finally {
        await appendOnly.close();
      }
    });

    allOnly(
      'forget --prune deletes through the bridge: the snapshot and its packs go, the rest checks out',
      async () => {
        const extra = join(work.dir, 'extra');
        await mkdir(extra);
        await writeFile(join(extra, 'only-here.bin'), noise(3 * 1024 * 1024, 7));
        const { snapshot_id: doomed } = backupSummary(await run(['backup', '--json', extra]));
        const packsBefore = await packs();
        await run(['forget', doomed, '--prune']);
        assert.ok(!(await snapshotIds(bridge.url, PASSWORD)).some((id) => id.startsWith(doomed.slice(0, 8))));
        assert.ok((await packs()) < packsBefore, `packs: ${packsBefore} before, ${await packs()} after`);
        assert.match(await run(['check', '--read-data-subset=100%']), /no errors were found/);
        const out = join(work.dir, 'restored-after-prune');
        await run(['restore', 'latest', '--path', src, '--target', out]);
        await assertSameTree(join(out, src), src);
      },
    );

    allOnly('the bridge reads what the stock restic wrote into the folder', async () => {
      const more = join(work.dir, 'more');
      await cp(join(src, 'docs'), more, { recursive: true });
      await resticOk(repoFolder, PASSWORD, ['backup', more]);
      const viaBridge = JSON.parse(await run(['snapshots', '--json', '--path', more])) as unknown[];
      assert.equal(viaBridge.length, 1);
      assert.match(await run(['check', '--read-data-subset=100%']), /no errors were found/);
    });

    it('met no storage failure along the way', () => {
      assert.deepEqual(errors, [], 'no storage failure along the way');
    });
  });
}
