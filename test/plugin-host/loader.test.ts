import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import type { Config } from '../../core/config/config.ts';
import type { BuildOptions } from '../../core/app.ts';
import { type StorageType, definePlugin, isPlugin, PLUGIN_API_VERSION, PLUGIN_BRAND } from '@backplane/plugin-api';
import { ProviderRegistry, PluginError } from '../../core/engine/host/provider-registry.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/plugin-package/', import.meta.url));
const FIXTURE_NAME = 'backplane-plugin-fixture';

// ---- building project roots -----------------------------------------------------------------

interface RootSpec {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  /** Copies of the fixture package into node_modules, by package name. */
  fixtureAs?: string[];
  /** Generated packages in node_modules: name -> files. */
  packages?: Record<string, Record<string, string>>;
  /** Built-in plugin folders: <root>/plugins/<dir>/<file>. */
  builtins?: Record<string, Record<string, string>>;
}

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), content);
  }
}

/** A temp project root laid out like an installation: package.json, node_modules, plugins/. */
async function projectRoot(t: TestContext, spec: RootSpec): Promise<string> {
  const root = await tempDir(t, 'backplane-plugins-');
  await writeFile(
    join(root, 'package.json'),
    JSON.stringify(
      {
        name: 'my-backplane',
        private: true,
        type: 'module',
        dependencies: spec.dependencies ?? {},
        optionalDependencies: spec.optionalDependencies,
      },
      null,
      2,
    ),
  );
  for (const name of spec.fixtureAs ?? []) await cp(FIXTURE, join(root, 'node_modules', name), { recursive: true });
  for (const [name, files] of Object.entries(spec.packages ?? {}))
    await writeFiles(join(root, 'node_modules', name), files);
  for (const [dir, files] of Object.entries(spec.builtins ?? {})) await writeFiles(join(root, 'plugins', dir), files);
  return root;
}

/** Source of a small plugin module; `extra` goes inside the plugin object, `register` is its body. */
function pluginSource(opts: {
  name: string;
  apiVersion?: unknown;
  brand?: string | null;
  register?: string;
  exportAs?: 'default' | 'plugin';
  prelude?: string;
}): string {
  const brand = opts.brand === null ? '' : `[Symbol.for('backplane.plugin')]: ${opts.brand ?? 'true'},`;
  const object =
    `{ ${brand} name: ${JSON.stringify(opts.name)}, apiVersion: ${JSON.stringify(opts.apiVersion ?? 1)}, ` +
    `async register(app, { ext }) { ${opts.register ?? ''} } }`;
  return `${opts.prelude ?? ''}\n${opts.exportAs === 'plugin' ? `export const plugin = ${object};` : `export default ${object};`}\n`;
}

/** A storage type literal (as JS source) of the given type name. */
const storageTypeJs = (type: string) =>
  `{ type: ${JSON.stringify(type)}, displayName: ${JSON.stringify(type)}, configSchema: { type: 'object' }, secretFields: [], ` +
  `capabilities: { range: false, usage: false, oauth: false }, create() { return {}; } }`;

/** A generated package (package.json with the marker, or none when `marker` is null, and index.js). */
function pluginPackage(
  name: string,
  source: string,
  marker: unknown = { plugin: true, apiVersion: 1 },
): Record<string, string> {
  return {
    'package.json': JSON.stringify({
      name,
      version: '0.0.1',
      type: 'module',
      main: 'index.js',
      ...(marker === null ? {} : { backplane: marker }),
    }),
    'index.js': source,
  };
}

async function boot(t: TestContext, config: Partial<Config>, buildOptions?: BuildOptions) {
  const { app } = await build(t, { config, build: buildOptions });
  const token = await setupAdmin(app);
  const info = await call(app, 'GET', '/api/system/info', { token });
  assert.equal(info.status, 200, info.body);
  return {
    app,
    info: info.json.data as {
      plugins: { name: string; origin: string; source: string; version: string | null }[];
      providers: Record<'storage' | 'notifier' | 'database', Record<string, string>>;
    },
  };
}

/** Boot must fail with a PluginError whose message matches every pattern. */
async function bootFails(t: TestContext, config: Partial<Config>, ...patterns: RegExp[]): Promise<Error> {
  let error: Error | undefined;
  try {
    await build(t, { config });
  } catch (err) {
    error = err as Error;
  }
  assert.ok(error, 'boot should have failed');
  assert.equal(error.name, 'PluginError', `${error.name}: ${error.message}`);
  for (const pattern of patterns) assert.match(error.message, pattern);
  return error;
}

async function roundTrip(type: StorageType, bucket: string) {
  const deps = { tempDir: '/tmp', log: { info() {}, warn() {}, error() {} } };
  const store = await type.create({ bucket }, deps);
  assert.deepEqual(
    await store.put('task/2026/a.bin', Readable.from([Buffer.from('hello '), Buffer.from('world')]), { size: 11 }),
    { size: 11 },
  );
  const whole: Buffer[] = [];
  for await (const c of await store.get('task/2026/a.bin')) whole.push(c as Buffer);
  assert.equal(Buffer.concat(whole).toString(), 'hello world');
  const part: Buffer[] = [];
  for await (const c of await store.get('task/2026/a.bin', { start: 6, end: 10 })) part.push(c as Buffer);
  assert.equal(Buffer.concat(part).toString(), 'world');
  await assert.rejects(store.get('missing'), (err: Error & { kind?: string }) => err.kind === 'not_found');
  assert.equal((await store.stat('task/2026/a.bin'))?.size, 11);
  await store.delete('task/2026/a.bin');
  await store.delete('task/2026/a.bin'); // idempotent
  assert.equal(await store.stat('task/2026/a.bin'), undefined);
}

function storageTypes(app: FastifyInstance) {
  return app.diContainer.cradle.storageTypes;
}

// ---- discovery and loading -------------------------------------------------------------------

test('a marked dependency in node_modules is discovered, loaded and adds its storage type', async (t) => {
  const root = await projectRoot(t, { dependencies: { [FIXTURE_NAME]: '^1.2.3' }, fixtureAs: [FIXTURE_NAME] });
  const { app, info } = await boot(t, { projectRoot: root });

  assert.deepEqual(info.plugins, [
    { name: 'fixture-memory', origin: 'package', source: FIXTURE_NAME, version: '1.2.3' },
  ]);
  assert.deepEqual(info.providers.storage, { fixture_memory: 'fixture-memory' });
  assert.deepEqual(info.providers.notifier, {});
  assert.deepEqual(info.providers.database, {});

  const registry = storageTypes(app);
  assert.ok(registry.has('fixture_memory'));
  assert.deepEqual(registry.owners(), { fixture_memory: 'fixture-memory' });
  const type = registry.get('fixture_memory')!;
  assert.equal(type.displayName, 'In-memory (fixture)');
  assert.deepEqual(type.secretFields, ['token']);
  assert.deepEqual(type.capabilities, { range: true, usage: false, oauth: false });
  assert.deepEqual(
    app.diContainer.cradle.plugins.map((p) => p.name),
    ['fixture-memory'],
  );
  // The registered type is the plugin's own, working provider.
  await roundTrip(type, 'discovered');
});

test('optional dependencies count; unmarked, unmarked-false and uninstalled dependencies are ignored', async (t) => {
  const root = await projectRoot(t, {
    dependencies: { 'left-pad-ish': '1.0.0', 'not-installed-at-all': '1.0.0', 'says-no': '1.0.0' },
    optionalDependencies: { [FIXTURE_NAME]: '1.2.3', 'optional-missing': '1.0.0' },
    fixtureAs: [FIXTURE_NAME],
    packages: {
      // Importing either of these would fail boot: they must not even be imported.
      'left-pad-ish': pluginPackage('left-pad-ish', "throw new Error('an unmarked dependency was imported');", null),
      'says-no': pluginPackage('says-no', "throw new Error('a plugin:false dependency was imported');", {
        plugin: false,
        apiVersion: 1,
      }),
    },
  });
  const { info } = await boot(t, { projectRoot: root });
  assert.deepEqual(
    info.plugins.map((p) => p.source),
    [FIXTURE_NAME],
  );
});

test('discovery order: built-in folders, then marked dependencies, then BACKPLANE_PLUGINS', async (t) => {
  const store = (type: string) => `ext.storage.addType(${storageTypeJs(type)});`;
  const root = await projectRoot(t, {
    dependencies: { 'zz-dep-plugin': '1.0.0', [FIXTURE_NAME]: '1.2.3' },
    fixtureAs: [FIXTURE_NAME],
    packages: {
      'zz-dep-plugin': pluginPackage('zz-dep-plugin', pluginSource({ name: 'zz-dep', register: store('zz_dep') })),
      'configured-one': pluginPackage(
        'configured-one',
        pluginSource({ name: 'configured-one', register: store('configured') }),
      ),
    },
    builtins: {
      'b-builtin': { 'index.js': pluginSource({ name: 'b-builtin', register: store('b_builtin') }) },
      'a-builtin': { 'index.js': pluginSource({ name: 'a-builtin', register: store('a_builtin') }) },
      'no-index': { 'README.md': 'a folder without index is not a plugin' },
    },
  });
  const { info } = await boot(t, { projectRoot: root, plugins: ['configured-one'] });
  assert.deepEqual(
    info.plugins.map((p) => [p.name, p.origin, p.source]),
    [
      ['a-builtin', 'builtin', 'plugins/a-builtin'],
      ['b-builtin', 'builtin', 'plugins/b-builtin'],
      ['fixture-memory', 'package', FIXTURE_NAME],
      ['zz-dep', 'package', 'zz-dep-plugin'],
      ['configured-one', 'config', 'configured-one'],
    ],
  );
  assert.deepEqual(info.providers.storage, {
    a_builtin: 'a-builtin',
    b_builtin: 'b-builtin',
    fixture_memory: 'fixture-memory',
    zz_dep: 'zz-dep',
    configured: 'configured-one',
  });
});

test('BACKPLANE_PLUGINS path form: an absolute package folder, a relative folder, a plain folder and a file', async (t) => {
  // The fixture straight from the test tree: not under node_modules, not in any package.json.
  const absolute = await boot(t, { projectRoot: await projectRoot(t, {}), plugins: [FIXTURE] });
  assert.deepEqual(absolute.info.plugins, [
    { name: 'fixture-memory', origin: 'config', source: FIXTURE, version: '1.2.3' },
  ]);
  assert.ok(storageTypes(absolute.app).has('fixture_memory'));

  const root = await projectRoot(t, {});
  await cp(FIXTURE, join(root, 'vendor', 'memory'), { recursive: true });
  await writeFiles(join(root, 'vendor', 'bare'), {
    'index.js': pluginSource({
      name: 'bare-folder',
      register: `ext.notifiers.addType(${storageTypeJs('bare_notifier')});`,
    }),
  });
  await writeFiles(join(root, 'vendor', 'single'), {
    'plugin.js': pluginSource({
      name: 'single-file',
      register: `ext.databases.addType(${storageTypeJs('single_db')});`,
    }),
  });
  const relative = await boot(
    t,
    { projectRoot: root, plugins: ['./vendor/memory', './vendor/bare', join(root, 'vendor', 'single', 'plugin.js')] },
    { cwd: root },
  );
  assert.deepEqual(
    relative.info.plugins.map((p) => [p.name, p.origin, p.source, p.version]),
    [
      ['fixture-memory', 'config', './vendor/memory', '1.2.3'],
      ['bare-folder', 'config', './vendor/bare', null],
      ['single-file', 'config', join(root, 'vendor', 'single', 'plugin.js'), null],
    ],
  );
  // Each extension point feeds its own registry.
  assert.deepEqual(relative.info.providers, {
    storage: { fixture_memory: 'fixture-memory' },
    notifier: { bare_notifier: 'bare-folder' },
    database: { single_db: 'single-file' },
  });
  assert.ok(relative.app.diContainer.cradle.notifierTypes.has('bare_notifier'));
  assert.ok(relative.app.diContainer.cradle.databaseDrivers.has('single_db'));
  assert.equal(storageTypes(relative.app).has('bare_notifier'), false);
});

test('BACKPLANE_PLUGINS package-name form loads an installed package that is not a dependency', async (t) => {
  const root = await projectRoot(t, { fixtureAs: [FIXTURE_NAME] });
  const { app, info } = await boot(t, { projectRoot: root, plugins: [FIXTURE_NAME] });
  assert.deepEqual(info.plugins, [
    { name: 'fixture-memory', origin: 'config', source: FIXTURE_NAME, version: '1.2.3' },
  ]);
  await roundTrip(storageTypes(app).get('fixture_memory')!, 'by-name');
});

test('a package that is both a dependency and named in BACKPLANE_PLUGINS loads once', async (t) => {
  const root = await projectRoot(t, { dependencies: { [FIXTURE_NAME]: '1.2.3' }, fixtureAs: [FIXTURE_NAME] });
  const { info } = await boot(t, {
    projectRoot: root,
    plugins: [FIXTURE_NAME, join(root, 'node_modules', FIXTURE_NAME)],
  });
  assert.deepEqual(
    info.plugins.map((p) => [p.name, p.origin]),
    [['fixture-memory', 'package']],
  );
});

test('a plugin may be exported as `plugin` instead of default', async (t) => {
  const root = await projectRoot(t, {
    dependencies: { named: '1.0.0' },
    packages: {
      named: pluginPackage(
        'named',
        pluginSource({
          name: 'named-export',
          exportAs: 'plugin',
          register: `ext.storage.addType(${storageTypeJs('named_store')});`,
        }),
      ),
    },
  });
  const { info } = await boot(t, { projectRoot: root });
  assert.deepEqual(info.providers.storage, { named_store: 'named-export' });
});

// ---- failures stop boot and name the plugin --------------------------------------------------

test('a default export without the brand stops boot', async (t) => {
  const noBrand = await projectRoot(t, {
    dependencies: { 'backplane-plugin-nobrand': '1.0.0' },
    packages: {
      'backplane-plugin-nobrand': pluginPackage(
        'backplane-plugin-nobrand',
        pluginSource({ name: 'nobrand', brand: null }),
      ),
    },
  });
  await bootFails(
    t,
    { projectRoot: noBrand },
    /plugin "backplane-plugin-nobrand"/,
    /not a Backplane plugin/,
    /definePlugin/,
  );

  // The brand must be exactly true, and must be the registered symbol (not a private Symbol()).
  const truthy = await projectRoot(t, {
    dependencies: { truthy: '1.0.0' },
    packages: { truthy: pluginPackage('truthy', pluginSource({ name: 'truthy', brand: "'yes'" })) },
  });
  await bootFails(t, { projectRoot: truthy }, /plugin "truthy"/, /not a Backplane plugin/);
  const privateSymbol = await projectRoot(t, {
    dependencies: { lookalike: '1.0.0' },
    packages: {
      lookalike: pluginPackage(
        'lookalike',
        "export default { [Symbol('backplane.plugin')]: true, name: 'lookalike', apiVersion: 1, register() {} };",
      ),
    },
  });
  await bootFails(t, { projectRoot: privateSymbol }, /plugin "lookalike"/, /not a Backplane plugin/);
  const noExport = await projectRoot(t, {
    dependencies: { empty: '1.0.0' },
    packages: { empty: pluginPackage('empty', 'export const nothing = 1;') },
  });
  await bootFails(t, { projectRoot: noExport }, /plugin "empty"/, /not a Backplane plugin/);
});

test('a wrong plugin API version stops boot', async (t) => {
  const root = await projectRoot(t, {
    dependencies: { future: '1.0.0' },
    packages: { future: pluginPackage('future', pluginSource({ name: 'future', apiVersion: 2 })) },
  });
  await bootFails(t, { projectRoot: root }, /plugin "future"/, /API version 2/, /supports 1/);
  const missing = await projectRoot(t, {
    dependencies: { unversioned: '1.0.0' },
    packages: {
      unversioned: pluginPackage(
        'unversioned',
        "export default { [Symbol.for('backplane.plugin')]: true, name: 'unversioned', register() {} };",
      ),
    },
  });
  await bootFails(t, { projectRoot: missing }, /plugin "unversioned"/, /API version undefined/);
});

test('two plugins providing the same storage type stop boot, naming both', async (t) => {
  const root = await projectRoot(t, {
    dependencies: { [FIXTURE_NAME]: '1.2.3', 'copycat-pkg': '1.0.0' },
    fixtureAs: [FIXTURE_NAME],
    packages: {
      'copycat-pkg': pluginPackage(
        'copycat-pkg',
        pluginSource({ name: 'copycat', register: `ext.storage.addType(${storageTypeJs('fixture_memory')});` }),
      ),
    },
  });
  await bootFails(
    t,
    { projectRoot: root },
    /plugin "copycat"/,
    /storage type "fixture_memory"/,
    /already provided by plugin "fixture-memory"/,
  );
});

test('two plugins with the same name stop boot, naming both sources', async (t) => {
  const root = await projectRoot(t, {
    dependencies: { [FIXTURE_NAME]: '1.2.3', 'fixture-fork': '1.0.0' },
    fixtureAs: [FIXTURE_NAME, 'fixture-fork'],
  });
  await bootFails(
    t,
    { projectRoot: root },
    /plugin "fixture-memory"/,
    /loaded twice/,
    new RegExp(`from ${FIXTURE_NAME} and from fixture-fork`),
  );
});

test('a module that fails to import stops boot, naming the plugin and the cause', async (t) => {
  const throwing = await projectRoot(t, {
    dependencies: { 'throws-on-import': '1.0.0' },
    packages: { 'throws-on-import': pluginPackage('throws-on-import', "throw new Error('missing peer: left-pad');") },
  });
  await bootFails(t, { projectRoot: throwing }, /plugin "throws-on-import"/, /cannot import/, /missing peer: left-pad/);
  const syntax = await projectRoot(t, {
    dependencies: { 'bad-syntax': '1.0.0' },
    packages: { 'bad-syntax': pluginPackage('bad-syntax', 'export default {{ nope') },
  });
  await bootFails(t, { projectRoot: syntax }, /plugin "bad-syntax"/, /cannot import/);
  // TypeScript inside node_modules is not stripped: a package must ship JavaScript.
  const typed = await projectRoot(t, {
    dependencies: { 'ships-ts': '1.0.0' },
    packages: {
      'ships-ts': {
        'package.json': JSON.stringify({
          name: 'ships-ts',
          type: 'module',
          main: 'index.ts',
          backplane: { plugin: true, apiVersion: 1 },
        }),
        'index.ts': "const n: number = 1;\nexport default { name: 'ships-ts' };",
      },
    },
  });
  await bootFails(t, { projectRoot: typed }, /plugin "ships-ts"/, /cannot import/);
  const missingEntry = await projectRoot(t, {
    dependencies: { 'no-entry': '1.0.0' },
    packages: {
      'no-entry': {
        'package.json': JSON.stringify({ name: 'no-entry', main: 'dist/index.js', backplane: { plugin: true } }),
      },
    },
  });
  await bootFails(t, { projectRoot: missingEntry }, /plugin "no-entry"/, /cannot import .*dist\/index\.js/);
});

test('BACKPLANE_PLUGINS naming a missing package or path stops boot with a hint', async (t) => {
  const root = await projectRoot(t, {});
  await bootFails(
    t,
    { projectRoot: root, plugins: ['backplane-plugin-missing'] },
    /plugin "backplane-plugin-missing"/,
    /BACKPLANE_PLUGINS/,
    /cannot find package "backplane-plugin-missing"/,
    /npm install backplane-plugin-missing/,
  );
  await bootFails(
    t,
    { projectRoot: root, plugins: [join(root, 'does', 'not', 'exist')] },
    /BACKPLANE_PLUGINS/,
    /no such file or folder/,
  );
  await mkdir(join(root, 'empty-folder'));
  await bootFails(
    t,
    { projectRoot: root, plugins: [join(root, 'empty-folder')] },
    /plugin ".*empty-folder"/,
    /neither a package\.json nor an index/,
  );
});

test('a register() that throws, or adds an invalid type, stops boot naming the plugin', async (t) => {
  const throws = await projectRoot(t, {
    dependencies: { 'bad-register': '1.0.0' },
    packages: {
      'bad-register': pluginPackage(
        'bad-register',
        pluginSource({ name: 'bad-register', register: "throw new Error('cannot reach license server');" }),
      ),
    },
  });
  await bootFails(
    t,
    { projectRoot: throws },
    /plugin "bad-register"/,
    /register failed/,
    /cannot reach license server/,
  );

  const badType = await projectRoot(t, {
    dependencies: { 'bad-type': '1.0.0' },
    packages: {
      'bad-type': pluginPackage(
        'bad-type',
        pluginSource({ name: 'bad-type', register: `ext.storage.addType(${storageTypeJs('Has Spaces')});` }),
      ),
    },
  });
  await bootFails(t, { projectRoot: badType }, /plugin "bad-type"/, /storage type must have a lower-case "type" name/);

  const noCreate = await projectRoot(t, {
    dependencies: { 'no-create': '1.0.0' },
    packages: {
      'no-create': pluginPackage(
        'no-create',
        pluginSource({
          name: 'no-create',
          register:
            "ext.databases.addType({ type: 'nocreate', displayName: 'x', configSchema: {}, secretFields: [] });",
        }),
      ),
    },
  });
  await bootFails(
    t,
    { projectRoot: noCreate },
    /plugin "no-create"/,
    /database type "nocreate" has no create\(\) function/,
  );
});

test('a plugin name that is not a lower-case identifier, or a missing register, stops boot', async (t) => {
  const upper = await projectRoot(t, {
    dependencies: { shouty: '1.0.0' },
    packages: { shouty: pluginPackage('shouty', pluginSource({ name: 'Shouty Plugin' })) },
  });
  await bootFails(t, { projectRoot: upper }, /plugin "shouty"/, /lower-case identifier/, /Shouty Plugin/);
  const noRegister = await projectRoot(t, {
    dependencies: { lazy: '1.0.0' },
    packages: {
      lazy: pluginPackage(
        'lazy',
        "export default { [Symbol.for('backplane.plugin')]: true, name: 'lazy', apiVersion: 1 };",
      ),
    },
  });
  await bootFails(t, { projectRoot: noRegister }, /plugin "lazy"/, /register is not a function/);
});

test('after a failed boot, a good configuration on the same data dir still boots', async (t) => {
  const dataDir = await tempDir(t);
  const bad = await projectRoot(t, {
    dependencies: { future: '1.0.0' },
    packages: { future: pluginPackage('future', pluginSource({ name: 'future', apiVersion: 99 })) },
  });
  await assert.rejects(build(t, { dataDir, config: { projectRoot: bad } }), /API version 99/);
  const good = await projectRoot(t, { dependencies: { [FIXTURE_NAME]: '1' }, fixtureAs: [FIXTURE_NAME] });
  const { app } = await build(t, { dataDir, config: { projectRoot: good } });
  assert.ok(storageTypes(app).has('fixture_memory'));
});

// ---- unit: registry ----------------------------------------------------------------------------

function fakeStorage(type: string, extra: Partial<StorageType> = {}): StorageType {
  return {
    type,
    displayName: type,
    configSchema: { type: 'object' },
    secretFields: [],
    capabilities: { range: false, usage: false, oauth: false },
    create: () => {
      throw new Error('not used');
    },
    ...extra,
  };
}

test('ProviderRegistry: add, get, has, list and owners', () => {
  const registry = new ProviderRegistry<StorageType>('storage');
  assert.equal(registry.kind, 'storage');
  assert.deepEqual(registry.list(), []);
  assert.deepEqual(registry.owners(), {});
  assert.equal(registry.get('s3'), undefined);
  assert.equal(registry.has('s3'), false);

  const s3 = fakeStorage('s3');
  const local = fakeStorage('local_disk');
  registry.add(s3, 'storage-rclone');
  registry.add(local, 'storage-local');
  assert.equal(registry.get('s3'), s3, 'the very object the plugin added');
  assert.equal(registry.has('local_disk'), true);
  assert.equal(registry.has('S3'), false, 'type names are case-sensitive');
  assert.deepEqual(registry.list(), [s3, local], 'insertion order');
  assert.deepEqual(registry.owners(), { s3: 'storage-rclone', local_disk: 'storage-local' });
  // Accepted shapes of type names.
  for (const type of ['a', 'google_drive', 'web-dav2', 'x'.repeat(64)]) registry.add(fakeStorage(type), 'p');
});

test('ProviderRegistry: refuses bad type names, missing create() and duplicates, naming the plugin', () => {
  const registry = new ProviderRegistry<StorageType>('storage');
  for (const type of ['', 'S3', '1drive', '_x', 'has space', 'dots.too', 'x'.repeat(65)]) {
    assert.throws(
      () => registry.add(fakeStorage(type), 'plug-a'),
      (err: Error) =>
        err instanceof PluginError &&
        err.message.includes('plugin "plug-a"') &&
        err.message.includes('storage type must have a lower-case "type" name') &&
        err.message.includes(JSON.stringify(type)),
      type,
    );
  }
  assert.throws(
    () => registry.add(undefined as unknown as StorageType, 'plug-a'),
    /plugin "plug-a": storage type must have a lower-case "type" name \(got undefined\)/,
  );
  assert.throws(
    () => registry.add({ ...fakeStorage('nocreate'), create: undefined } as unknown as StorageType, 'plug-b'),
    /plugin "plug-b": storage type "nocreate" has no create\(\) function/,
  );

  registry.add(fakeStorage('s3'), 'first-plugin');
  assert.throws(
    () => registry.add(fakeStorage('s3'), 'second-plugin'),
    (err: Error) =>
      err.name === 'PluginError' &&
      err.message === 'plugin "second-plugin": storage type "s3" is already provided by plugin "first-plugin"',
  );
  assert.throws(
    () => registry.add(fakeStorage('s3'), 'first-plugin'),
    /already provided by plugin "first-plugin"/,
    'even by the same plugin',
  );
  assert.deepEqual(registry.owners(), { s3: 'first-plugin' }, 'refused types leave nothing behind');

  // Kinds are separate: the same type name may exist once per kind.
  const notifiers = new ProviderRegistry<StorageType>('notifier');
  notifiers.add(fakeStorage('s3'), 'other');
  assert.throws(() => notifiers.add(fakeStorage('s3'), 'third'), /notifier type "s3"/);
});

// ---- unit: definePlugin and the brand ---------------------------------------------------------

test('definePlugin brands a frozen copy; isPlugin checks the registered symbol', () => {
  assert.equal(PLUGIN_API_VERSION, 1);
  assert.equal(PLUGIN_BRAND, Symbol.for('backplane.plugin'));

  const register = async () => {};
  const definition = { name: 'demo', apiVersion: 1, register };
  const plugin = definePlugin(definition);
  assert.equal(plugin[PLUGIN_BRAND], true);
  assert.equal(plugin.name, 'demo');
  assert.equal(plugin.apiVersion, 1);
  assert.equal(plugin.register, register);
  assert.ok(Object.isFrozen(plugin));
  assert.notEqual(plugin, definition as unknown);
  assert.equal(Object.getOwnPropertySymbols(definition).length, 0, 'the input is not mutated');
  assert.equal(isPlugin(plugin), true);

  // Another copy of Backplane (or none at all) brands the same way: the symbol is registered.
  assert.equal(isPlugin({ [Symbol.for('backplane.plugin')]: true, name: 'x', apiVersion: 1, register }), true);
  for (const value of [
    undefined,
    null,
    0,
    'plugin',
    register,
    [],
    { name: 'x', apiVersion: 1, register },
    { [Symbol('backplane.plugin')]: true, name: 'x' },
    { [Symbol.for('backplane.plugin')]: 'true' },
    { [Symbol.for('backplane.plugin')]: 1 },
    { 'backplane.plugin': true },
  ])
    assert.equal(isPlugin(value), false, String(value));
});

// ---- Node's resolution, the marker's apiVersion, BACKPLANE_PLUGINS_DISABLED ------------------

test('a package entry is resolved as Node resolves it: the first matching export condition wins', async (t) => {
  const store = (type: string) => `ext.storage.addType(${storageTypeJs(type)});`;
  const root = await projectRoot(t, {
    dependencies: { 'conditional-exports': '1.0.0' },
    packages: {
      'conditional-exports': {
        'package.json': JSON.stringify({
          name: 'conditional-exports',
          version: '1.0.0',
          type: 'module',
          backplane: { plugin: true, apiVersion: 1 },
          exports: { '.': { node: './node.js', import: './wrong.js' }, './package.json': './package.json' },
        }),
        'node.js': pluginSource({ name: 'conditional', register: store('conditional_node') }),
        'wrong.js': "throw new Error('the import condition was chosen over node, which comes first');",
      },
    },
  });
  const { info } = await boot(t, { projectRoot: root });
  assert.deepEqual(info.providers.storage, { conditional_node: 'conditional' });
});

test('the apiVersion of the package marker is checked before the plugin is imported', async (t) => {
  const root = await projectRoot(t, {
    dependencies: { 'marker-future': '1.0.0' },
    packages: {
      'marker-future': pluginPackage(
        'marker-future',
        "throw new Error('a plugin for another API version was imported');",
        { plugin: true, apiVersion: 2 },
      ),
    },
  });
  await bootFails(
    t,
    { projectRoot: root },
    /plugin "marker-future"/,
    /package\.json declares plugin API version 2/,
    /supports 1/,
  );
  // Named in BACKPLANE_PLUGINS, the same check applies.
  const configured = await projectRoot(t, {
    packages: {
      'marker-future': pluginPackage('marker-future', "throw new Error('imported');", { plugin: true, apiVersion: 2 }),
    },
  });
  await bootFails(
    t,
    { projectRoot: configured, plugins: ['marker-future'] },
    /plugin "marker-future"/,
    /API version 2/,
  );
});

test('BACKPLANE_PLUGINS_DISABLED leaves out plugins by package, folder or plugin name; an unknown name stops boot', async (t) => {
  const store = (type: string) => `ext.storage.addType(${storageTypeJs(type)});`;
  const root = await projectRoot(t, {
    dependencies: { 'broken-dep': '1.0.0', [FIXTURE_NAME]: '1.2.3', 'kept-dep': '1.0.0' },
    fixtureAs: [FIXTURE_NAME],
    packages: {
      // Disabled by package name: not even imported, so its top-level throw cannot stop boot.
      'broken-dep': pluginPackage('broken-dep', "throw new Error('a disabled plugin was imported');"),
      'kept-dep': pluginPackage('kept-dep', pluginSource({ name: 'kept', register: store('kept') })),
    },
    builtins: {
      'a-builtin': { 'index.js': pluginSource({ name: 'a-builtin', register: store('a_builtin') }) },
      'b-builtin': { 'index.js': "throw new Error('a disabled built-in was imported');" },
    },
  });
  const { app, info } = await boot(t, {
    projectRoot: root,
    pluginsDisabled: ['broken-dep', 'b-builtin', 'fixture-memory'],
  });
  assert.deepEqual(
    info.plugins.map((p) => p.name),
    ['a-builtin', 'kept'],
  );
  assert.deepEqual(info.providers.storage, { a_builtin: 'a-builtin', kept: 'kept' });
  assert.equal(storageTypes(app).has('fixture_memory'), false, 'disabled by its plugin name');

  await bootFails(
    t,
    { projectRoot: root, pluginsDisabled: ['broken-dep', 'b-builtin', 'no-such-plugin'] },
    /BACKPLANE_PLUGINS_DISABLED names "no-such-plugin"/,
  );
});

test('a third-party storage type declares other names for config fields (configAliases): core translates them, names them in errors, shows both', async (t) => {
  const type =
    `{ type: 'aliased_store', displayName: 'Aliased', secretFields: ['key'],
    configSchema: { type: 'object', additionalProperties: false, required: ['dir'], ` +
    `properties: { dir: { type: 'string', minLength: 2 }, key: { type: 'string' } } },
    configAliases: { fields: [{ alias: 'folder', native: 'dir' }, { alias: 'apiKey', native: 'key' }] },
    capabilities: { range: false, usage: false, oauth: false }, create() { return {}; } }`;
  const root = await projectRoot(t, {
    builtins: { aliased: { 'index.js': pluginSource({ name: 'aliased', register: `ext.storage.addType(${type});` }) } },
  });
  const { app } = await boot(t, { projectRoot: root });
  const token = (
    await call(app, 'POST', '/api/auth/login', { body: { username: 'admin', password: 'admin-password-1' } })
  ).json.data.token;
  const created = await call(app, 'POST', '/api/storage-targets', {
    token,
    body: { name: 'a', type: 'aliased_store', config: { folder: '/data/x', apiKey: 's3cret' } },
  });
  assert.equal(created.status, 200, created.body);
  const detail = await call(app, 'GET', `/api/storage-targets/${created.json.data.id}`, { token });
  assert.equal(detail.json.data.config.dir, '/data/x', 'stored under the native name');
  assert.equal(detail.json.data.config.folder, '/data/x', 'shown under the alias too');
  assert.equal(detail.json.data.config.apiKey, '********', 'a secret is masked under both names');
  assert.ok(!detail.body.includes('s3cret'));
  const bad = await call(app, 'POST', '/api/storage-targets', {
    token,
    body: { name: 'b', type: 'aliased_store', config: { folder: 'x' } },
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(
    bad.json.details.map((d: any) => d.path),
    ['config/folder'],
    'the error names the field the client sent',
  );
});
