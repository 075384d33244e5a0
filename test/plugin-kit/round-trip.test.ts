import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { build, call, setupAdmin } from '../helpers/build.ts';

/**
 * The published kit, end to end: both packages packed with `npm pack` (which builds them),
 * installed from the tarballs into a folder outside the repository, and the storage plugin of
 * docs/plugin-authoring.md's walkthrough written there from the doc's own code blocks. The
 * conformance suite passes against it under plain `node --test`, fails against a broken variant,
 * and a master loads it through BACKPLANE_PLUGINS. So the doc, the packages' builds and their
 * `files`/`exports` cannot drift from what an author gets.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
let work: string;
let plugin: string;

/** The code blocks of the doc that carry a file name: ```js title="index.js"`. */
async function docFiles(): Promise<Map<string, string>> {
  const text = await readFile(join(root, 'docs/plugin-authoring.md'), 'utf8');
  return new Map([...text.matchAll(/```\w+ title="([^"]+)"\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!]));
}

/** Runs `node --test` in a folder with the TAP reporter; never throws. */
async function nodeTest(cwd: string): Promise<{ code: number; out: string }> {
  // Without NODE_TEST_CONTEXT, which would make the inner runner report to this one instead of printing.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  try {
    const { stdout } = await run(process.execPath, ['--test', '--test-reporter=tap'], {
      cwd,
      env: { ...env, BACKPLANE_TEST_LARGE_MB: '64' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: e.code ?? -1, out: e.stdout ?? '' };
  }
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'backplane-kit-'));
  assert.ok(relative(root, work).startsWith('..'), 'the scratch folder lies outside the repository');
  const packs = join(work, 'packs');
  await mkdir(packs);
  const { stdout } = await run(
    'npm',
    ['pack', '-w', '@backplane/plugin-api', '-w', '@backplane/plugin-testkit', '--pack-destination', packs, '--json'],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  );
  const tarballs = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  for (const t of tarballs)
    assert.ok(
      t.files.every((f) => !f.path.endsWith('.ts') || f.path.endsWith('.d.ts')),
      `${t.filename} ships JavaScript only`,
    );

  plugin = join(work, 'backplane-storage-example-folder');
  const files = await docFiles();
  assert.deepEqual([...files.keys()].sort(), ['index.js', 'package.json', 'test/folder.test.js']);
  for (const [name, content] of files) {
    await mkdir(dirname(join(plugin, name)), { recursive: true });
    await writeFile(join(plugin, name), content);
  }
  const [api, kit] = ['backplane-plugin-api-0.1.0.tgz', 'backplane-plugin-testkit-0.1.0.tgz'].map((f) =>
    join(packs, f),
  );
  const npm = ['--offline', '--no-audit', '--no-fund'];
  await run('npm', ['install', ...npm, api!], { cwd: plugin });
  await run('npm', ['install', ...npm, '--save-dev', kit!], { cwd: plugin });
});

after(() => rm(work, { recursive: true, force: true }));

test('the walkthrough plugin passes the storage suite from the installed testkit', async () => {
  const { code, out } = await nodeTest(plugin);
  assert.equal(code, 0, out);
  assert.match(out, /^# fail 0$/m);
  assert.match(out, /^ok \d+ - the plugin registers the example_folder storage type/m);
  const passed = Number(/^# pass (\d+)$/m.exec(out)?.[1]);
  assert.ok(passed >= 20, `the whole suite ran (${passed} passed)`);
});

test('a broken variant of the plugin fails the suite', async () => {
  const broken = join(work, 'broken');
  await cp(plugin, broken, { recursive: true });
  const source = await readFile(join(broken, 'index.js'), 'utf8');
  // The variant forgets to check a short stream against the announced size.
  const check = 'if (meta.size !== undefined && counted.bytes !== meta.size) {';
  assert.ok(source.includes(check));
  await writeFile(join(broken, 'index.js'), source.replace(check, 'if (false) {'));
  const { code, out } = await nodeTest(broken);
  assert.notEqual(code, 0);
  assert.match(out, /^\s*not ok \d+ - a stream longer or shorter than meta\.size is refused and leaves nothing/m);
});

test('a master loads the installed plugin through BACKPLANE_PLUGINS and uses its storage type', async (t) => {
  const { app } = await build(t, { config: { plugins: [plugin] } });
  const token = await setupAdmin(app);
  const info = await call(app, 'GET', '/api/system/info', { token });
  assert.equal(info.status, 200, info.body);
  const { plugins, providers } = info.json.data as {
    plugins: Array<{ name: string; origin: string; version: string | null }>;
    providers: { storage: Record<string, string> };
  };
  assert.deepEqual(
    plugins.filter((p) => p.origin === 'config').map((p) => [p.name, p.version]),
    [['example-folder', '1.0.0']],
  );
  assert.equal(providers.storage.example_folder, 'example-folder');

  const folder = join(work, 'target');
  const body = { name: 'files', type: 'example_folder', config: { path: folder } };
  const tested = await call(app, 'POST', '/api/storage-targets/test', { token, body });
  assert.equal(tested.status, 200, tested.body);
  assert.equal(tested.json.data.success, true, tested.body);
  const created = await call(app, 'POST', '/api/storage-targets', { token, body });
  assert.equal(created.status, 200, created.body);
  assert.equal(created.json.data.type, 'example_folder');
});
