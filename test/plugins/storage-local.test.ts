import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runStorageContract } from '@backplane/plugin-testkit';
import { strandInFolder } from '../helpers/stranded-upload.ts';
import { build, tempDir } from '../helpers/build.ts';
import { ProviderError, type ProviderDeps, type StorageInstance, isPlugin } from '@backplane/plugin-api';
import { localDiskType } from '../../plugins/storage-local/local-disk.ts';
import storageLocalPlugin from '../../plugins/storage-local/index.ts';
import { toProviderError } from '../../plugins/storage-local/local-errors.ts';

const deps: ProviderDeps = {
  tempDir: tmpdir(),
  log: { info: () => undefined, warn: () => undefined, error: () => undefined },
};

const open = async (basePath: string): Promise<StorageInstance> => localDiskType.create({ basePath }, deps);

/** Every file below `dir`, relative, temp files included: what the disk really holds. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

function failing(chunks: number): Readable {
  return Readable.from(
    (async function* broken() {
      for (let i = 0; i < chunks; i++) yield Buffer.alloc(8_192, i);
      throw new Error('source failed');
    })(),
  );
}

function kindOf(err: unknown): string | undefined {
  return err instanceof ProviderError ? err.kind : undefined;
}

runStorageContract(
  'local_disk',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'backplane-local-contract-'));
    return {
      instance: await open(dir),
      cleanup: () => rm(dir, { recursive: true, force: true }),
      strand: strandInFolder(dir),
    };
  },
  { stagesUploads: true },
);

test('a failed put leaves no temp file and no empty folders behind', async (t) => {
  const base = await tempDir(t, 'backplane-local-');
  const disk = await open(base);
  await assert.rejects(disk.put('a/b/c.bin', failing(3)));
  await assert.rejects(disk.put('top.bin', failing(2), { size: 100 }));
  await assert.rejects(
    disk.put('sized.bin', Readable.from([Buffer.alloc(50)]), { size: 49 }),
    (err) => kindOf(err) === 'permanent',
  );
  assert.deepEqual(await readdir(base), [], 'neither files nor the folders the failed put created');

  await disk.put('keep/existing.bin', Readable.from([Buffer.from('old')]), { size: 3 });
  await assert.rejects(disk.put('keep/existing.bin', failing(2)));
  assert.deepEqual(await filesUnder(base), ['keep/existing.bin']);
  assert.equal(
    await readFile(join(base, 'keep/existing.bin'), 'utf8'),
    'old',
    'a failed overwrite keeps the previous file',
  );
});

test('an upload in progress is a temp file beside the target, hidden from list', async (t) => {
  const base = await tempDir(t, 'backplane-local-');
  const disk = await open(base);
  let pulled!: () => void;
  let release!: () => void;
  const firstPulled = new Promise<void>((resolve) => {
    pulled = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const body = Readable.from(
    (async function* gated() {
      yield Buffer.alloc(1_000, 1);
      pulled();
      await released;
      yield Buffer.alloc(1_000, 2);
    })(),
  );
  const uploading = disk.put('folder/final.bin', body);
  await firstPulled;
  const during = await readdir(join(base, 'folder'));
  assert.equal(during.length, 1);
  assert.match(during[0]!, /^\.final\.bin\.[0-9a-f]{16}\.partial$/);
  const listed = [];
  for await (const item of disk.list('')) listed.push(item.key);
  assert.deepEqual(listed, []);
  release();
  assert.deepEqual(await uploading, { size: 2_000 });
  assert.deepEqual(await readdir(join(base, 'folder')), ['final.bin']);
  assert.equal(
    (await stat(join(base, 'folder/final.bin'))).mode & 0o777,
    0o600,
    'backups are readable by their owner only',
  );
});

test('keys that escape write nothing outside basePath', async (t) => {
  const outer = await tempDir(t, 'backplane-local-');
  const base = join(outer, 'root', 'base');
  await mkdir(base, { recursive: true });
  const disk = await open(base);
  for (const key of [
    '../x',
    'a/../../x',
    '../../x',
    `${outer}/x`,
    'a\\..\\..\\x',
    'nul\0byte',
    'a//b',
    'a/./b',
    '.x.0123456789abcdef.partial',
  ]) {
    await assert.rejects(
      disk.put(key, Readable.from([Buffer.from('x')])),
      (err) => kindOf(err) === 'permanent',
      `put ${JSON.stringify(key)}`,
    );
  }
  assert.deepEqual(await filesUnder(outer), [], 'no file anywhere around the base');
});

test('symlinks are not objects and do not lead reads outside the base', async (t) => {
  const outer = await tempDir(t, 'backplane-local-');
  const base = join(outer, 'base');
  await mkdir(base);
  await writeFile(join(outer, 'secret'), 'outside');
  await symlink(join(outer, 'secret'), join(base, 'link'));
  await symlink(outer, join(base, 'dirlink'));
  const disk = await open(base);
  await assert.rejects(disk.get('link'), (err) => kindOf(err) === 'not_found');
  assert.equal(await disk.stat('link'), undefined);
  const listed = [];
  for await (const item of disk.list('')) listed.push(item.key);
  assert.deepEqual(listed, [], 'list follows no symlink');
  await disk.delete('link');
  assert.equal(await readFile(join(outer, 'secret'), 'utf8'), 'outside');
});

test('delete removes folders it leaves empty, up to but not including the base', async (t) => {
  const base = await tempDir(t, 'backplane-local-');
  const disk = await open(base);
  await disk.put('task/2026/01/02/one.tar', Readable.from([Buffer.from('1')]));
  await disk.put('task/2026/01/keep.tar', Readable.from([Buffer.from('2')]));
  await disk.delete('task/2026/01/02/one.tar');
  assert.deepEqual(await filesUnder(base), ['task/2026/01/keep.tar']);
  assert.deepEqual(await readdir(join(base, 'task/2026/01')), ['keep.tar'], 'the emptied folder 02 is gone');
  await disk.delete('task/2026/01/keep.tar');
  assert.deepEqual(await readdir(base), []);
  assert.ok((await stat(base)).isDirectory(), 'the base itself stays');
});

test('invalid ranges are refused as permanent errors', async (t) => {
  const disk = await open(await tempDir(t, 'backplane-local-'));
  await disk.put('r', Readable.from([Buffer.from('0123456789')]));
  for (const range of [{ start: -1 }, { start: 5, end: 4 }, { start: 1.5 }, { start: Number.NaN }]) {
    await assert.rejects(disk.get('r', range), (err) => kindOf(err) === 'permanent', JSON.stringify(range));
  }
  assert.equal((await (await disk.get('r', { start: 10 })).toArray()).length, 0, 'a start at the end yields no bytes');
});

test('testConnection reports a missing or unusable basePath with a message, never throws', async (t) => {
  const dir = await tempDir(t, 'backplane-local-');
  const file = join(dir, 'a-file');
  await writeFile(file, 'not a folder');

  const missing = await (await open(join(dir, 'does-not-exist'))).testConnection();
  assert.equal(missing.success, false);
  assert.match(missing.message, /does not exist/);

  const underFile = await (await open(join(file, 'sub'))).testConnection();
  assert.equal(underFile.success, false);
  assert.match(underFile.message, /a part of the path is a file/);

  const notDir = await (await open(file)).testConnection();
  assert.equal(notDir.success, false);
  assert.match(notDir.message, /is not a directory/);

  const ok = await (await open(dir)).testConnection();
  assert.equal(ok.success, true, ok.message);
  assert.match(ok.message, /writable/);
  assert.deepEqual(await readdir(dir), ['a-file'], 'the probe file is removed');
});

test('a missing basePath is never created and fails every operation (an unmounted disk)', async (t) => {
  const dir = await tempDir(t, 'backplane-local-');
  const disk = await open(join(dir, 'mnt', 'usb'));
  const unmounted = (err: unknown) => kindOf(err) === 'permanent' && /does not exist/.test((err as Error).message);
  await assert.rejects(disk.put('x/y', Readable.from([Buffer.from('z')])), unmounted);
  await assert.rejects(disk.get('x/y'), unmounted, 'not not_found: the backups are not gone, the disk is');
  await assert.rejects(disk.stat('x/y'), unmounted);
  await assert.rejects(disk.delete('x/y'), unmounted);
  await assert.rejects(disk.list('x/')[Symbol.asyncIterator]().next(), unmounted);
  assert.deepEqual(await readdir(dir), []);
});

test('errno codes map onto provider error kinds', async (t) => {
  const disk = await open(await tempDir(t, 'backplane-local-'));
  await assert.rejects(disk.get('nope'), (err) => kindOf(err) === 'not_found');
  const cases: Record<string, string> = {
    ENOENT: 'not_found',
    ENOTDIR: 'not_found',
    EACCES: 'auth',
    EPERM: 'auth',
    ENOSPC: 'quota',
    EDQUOT: 'quota',
    EMFILE: 'transient',
    EBUSY: 'transient',
    EIO: 'permanent',
    EROFS: 'permanent',
    EISDIR: 'permanent',
  };
  for (const [code, kind] of Object.entries(cases)) {
    const err = toProviderError(Object.assign(new Error(`${code}: simulated`), { code }), 'writing x');
    assert.equal(kindOf(err), kind, code);
    assert.match((err as Error).message, new RegExp(code));
  }
  const own = new Error("the caller's own stream failed");
  assert.equal(toProviderError(own, 'writing x'), own, "a non-errno error is the caller's and passes through");
});

test('create refuses a relative or missing basePath; the schema requires an absolute one', async () => {
  for (const config of [
    {},
    { basePath: '' },
    { basePath: 'relative/dir' },
    { basePath: './x' },
    { basePath: 42 },
    { basePath: '/a\0b' },
  ]) {
    assert.throws(
      () => localDiskType.create(config, deps),
      (err) => kindOf(err) === 'permanent',
      JSON.stringify(config),
    );
  }
  const schema = localDiskType.configSchema as {
    required: string[];
    properties: { basePath: { pattern: string; maxLength: number } };
  };
  assert.deepEqual(schema.required, ['basePath']);
  assert.equal(schema.properties.basePath.maxLength, 4096);
  const pattern = new RegExp(schema.properties.basePath.pattern);
  assert.equal(pattern.test('/var/backups'), true);
  assert.equal(pattern.test('var/backups'), false);
  assert.deepEqual(localDiskType.secretFields, []);
  assert.deepEqual(localDiskType.capabilities, { range: true, usage: true, oauth: false });
});

test('the plugin loads through the real loader and registers local_disk', async (t) => {
  assert.ok(isPlugin(storageLocalPlugin));
  assert.equal(storageLocalPlugin.name, 'storage-local');
  const { app } = await build(t);
  const type = app.diContainer.cradle.storageTypes.get('local_disk');
  assert.ok(type, 'local_disk is registered');
  assert.equal(type, localDiskType);
  assert.equal(app.diContainer.cradle.storageTypes.owners().local_disk, 'storage-local');
});
