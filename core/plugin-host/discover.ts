import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve, dirname } from 'node:path';
import { PluginError } from './registry.ts';

export type PluginOrigin = 'builtin' | 'package' | 'config';

/** Where a plugin comes from, before it is imported. */
export interface PluginSource {
  /** Folder name, package name or configured path: what error messages call the plugin. */
  label: string;
  origin: PluginOrigin;
  /** Absolute path of the module to import. */
  entry: string;
  version?: string;
}

interface PackageJson {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  backplane?: { plugin?: boolean; apiVersion?: number };
}

async function readJson(path: string): Promise<PackageJson | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as PackageJson;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new PluginError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}

async function firstExisting(paths: string[]): Promise<string | undefined> {
  for (const path of paths) if (await exists(path)) return path;
  return undefined;
}

/** The ESM entry of an installed package: `exports["."]` (import/default), else `main`, else index.js. */
function packageEntry(dir: string, pkg: PackageJson): string {
  const root = typeof pkg.exports === 'object' && pkg.exports !== null && '.' in pkg.exports
    ? (pkg.exports as Record<string, unknown>)['.']
    : pkg.exports;
  let target: unknown = root;
  while (target && typeof target === 'object') {
    const conditions = target as Record<string, unknown>;
    target = conditions.import ?? conditions.node ?? conditions.default;
  }
  return join(dir, typeof target === 'string' ? target : pkg.main ?? 'index.js');
}

/** Finds an installed package the way Node does: node_modules folders from `from` upwards. */
async function findPackageDir(name: string, from: string): Promise<string | undefined> {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (await exists(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Built-in plugins: every `plugins/<name>/index.ts` (or .js) of the installation. */
async function builtinSources(projectRoot: string): Promise<PluginSource[]> {
  const dir = join(projectRoot, 'plugins');
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const sources: PluginSource[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    for (const file of ['index.ts', 'index.js']) {
      const path = join(dir, entry.name, file);
      if (await exists(path)) {
        sources.push({ label: `plugins/${entry.name}`, origin: 'builtin', entry: path });
        break;
      }
    }
  }
  return sources;
}

/** Dependencies of the root package.json whose own package.json carries `"backplane": {"plugin": true}`. */
async function packageSources(projectRoot: string): Promise<PluginSource[]> {
  const root = await readJson(join(projectRoot, 'package.json'));
  const names = Object.keys({ ...root?.dependencies, ...root?.optionalDependencies }).sort();
  const sources: PluginSource[] = [];
  for (const name of names) {
    const dir = await findPackageDir(name, projectRoot);
    if (!dir) continue; // an optional dependency that is not installed
    const pkg = await readJson(join(dir, 'package.json'));
    if (pkg?.backplane?.plugin !== true) continue;
    sources.push({ label: name, origin: 'package', entry: packageEntry(dir, pkg), version: pkg.version });
  }
  return sources;
}

/** `BACKPLANE_PLUGINS` entries: a path (absolute, or relative to the working directory) or a package name. */
async function configuredSources(specs: string[], projectRoot: string, cwd: string): Promise<PluginSource[]> {
  const sources: PluginSource[] = [];
  for (const spec of specs) {
    const isPath = spec.startsWith('.') || isAbsolute(spec);
    if (isPath) {
      const path = resolve(cwd, spec);
      const pkg = await readJson(join(path, 'package.json')).catch(() => undefined);
      if (pkg) sources.push({ label: spec, origin: 'config', entry: packageEntry(path, pkg), version: pkg.version });
      else if (await isDirectory(path)) {
        // A folder without package.json is laid out like a built-in: its index.ts or index.js (ESM cannot import a folder).
        const index = await firstExisting([join(path, 'index.ts'), join(path, 'index.js')]);
        if (!index) throw new PluginError(`plugin "${spec}" (BACKPLANE_PLUGINS): folder ${path} has neither a package.json nor an index.ts or index.js`);
        sources.push({ label: spec, origin: 'config', entry: index });
      } else if (await exists(path)) sources.push({ label: spec, origin: 'config', entry: path });
      else throw new PluginError(`plugin "${spec}" (BACKPLANE_PLUGINS): no such file or folder: ${path}`);
      continue;
    }
    const dir = await findPackageDir(spec, projectRoot) ?? await findPackageDir(spec, cwd);
    if (!dir) throw new PluginError(`plugin "${spec}" (BACKPLANE_PLUGINS): cannot find package "${spec}"; is it installed (npm install ${spec})?`);
    const pkg = (await readJson(join(dir, 'package.json')))!;
    sources.push({ label: spec, origin: 'config', entry: packageEntry(dir, pkg), version: pkg.version });
  }
  return sources;
}

/** All plugin sources in load order: built-in, then marked dependencies, then configured ones. */
export async function discoverPlugins(options: { projectRoot: string; configured: string[]; cwd?: string }): Promise<PluginSource[]> {
  const cwd = options.cwd ?? process.cwd();
  const all = [
    ...(await builtinSources(options.projectRoot)),
    ...(await packageSources(options.projectRoot)),
    ...(await configuredSources(options.configured, options.projectRoot, cwd)),
  ];
  // The same module named twice (a dependency also listed in BACKPLANE_PLUGINS) loads once.
  const seen = new Set<string>();
  return all.filter((s) => (seen.has(s.entry) ? false : (seen.add(s.entry), true)));
}
