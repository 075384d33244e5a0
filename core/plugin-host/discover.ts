import { readdir, readFile, stat } from 'node:fs/promises';
import { findPackageJSON } from 'node:module';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exports as resolveExports, legacy as legacyEntry } from 'resolve.exports';
import { PluginError } from '../engine/index.ts';

export type PluginOrigin = 'builtin' | 'package' | 'config';

/** Where a plugin comes from, before it is imported. */
export interface PluginSource {
  /** Folder name, package name or configured path: what error messages call the plugin. */
  label: string;
  origin: PluginOrigin;
  /** Absolute path of the module to import. */
  entry: string;
  version?: string;
  /** The names BACKPLANE_PLUGINS_DISABLED may use for it before import: label, package name, folder name. */
  names: string[];
  /** `backplane.apiVersion` of the package marker, when it has one: checked before import. */
  apiVersion?: unknown;
}

interface PackageJson {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  backplane?: { plugin?: boolean; apiVersion?: unknown };
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
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function firstExisting(paths: string[]): Promise<string | undefined> {
  for (const path of paths) if (await exists(path)) return path;
  return undefined;
}

/**
 * The package.json of an installed package as Node resolves `name` from `from` (node_modules
 * folders upwards, workspace links followed), or undefined when it is not installed.
 */
function findPackage(name: string, from: string): string | undefined {
  try {
    return findPackageJSON(name, pathToFileURL(join(resolve(from), 'package.json')));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
}

/** The module `import(name)` loads from a package: its `exports` under Node's import conditions, else `main`, else index.js. */
function packageEntry(dir: string, pkg: PackageJson, label: string): string {
  let target: string | undefined;
  if (pkg.exports !== undefined) {
    try {
      target = resolveExports(pkg, '.', { conditions: ['node', 'import'] })?.[0];
    } catch (err) {
      throw new PluginError(
        `plugin "${label}": its package.json "exports" has no entry for import: ${(err as Error).message}`,
      );
    }
  } else {
    target = legacyEntry(pkg, { fields: ['main'] }) as string | undefined;
  }
  return join(dir, target ?? 'index.js');
}

function packageSource(label: string, origin: PluginOrigin, packageJsonPath: string, pkg: PackageJson): PluginSource {
  const names = [label, pkg.name].filter((n): n is string => typeof n === 'string');
  return {
    label,
    origin,
    entry: packageEntry(dirname(packageJsonPath), pkg, label),
    version: pkg.version,
    names,
    apiVersion: pkg.backplane?.apiVersion,
  };
}

/** Built-in plugins: every `plugins/<name>/index.ts` (or .js) of the installation. */
async function builtinSources(projectRoot: string): Promise<PluginSource[]> {
  const dir = join(projectRoot, 'plugins');
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const sources: PluginSource[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const index = await firstExisting([join(dir, entry.name, 'index.ts'), join(dir, entry.name, 'index.js')]);
    if (index)
      sources.push({
        label: `plugins/${entry.name}`,
        origin: 'builtin',
        entry: index,
        names: [`plugins/${entry.name}`, entry.name],
      });
  }
  return sources;
}

/** Dependencies of the root package.json whose own package.json carries `"backplane": {"plugin": true}`. */
async function packageSources(projectRoot: string): Promise<PluginSource[]> {
  const root = await readJson(join(projectRoot, 'package.json'));
  const names = Object.keys({ ...root?.dependencies, ...root?.optionalDependencies }).sort();
  const sources: PluginSource[] = [];
  for (const name of names) {
    const path = findPackage(name, projectRoot);
    if (!path) continue; // an optional dependency that is not installed
    const pkg = await readJson(path);
    if (pkg?.backplane?.plugin !== true) continue;
    sources.push(packageSource(name, 'package', path, pkg));
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
      if (pkg) sources.push(packageSource(spec, 'config', join(path, 'package.json'), pkg));
      else if (await isDirectory(path)) {
        // A folder without package.json is laid out like a built-in: its index.ts or index.js (ESM cannot import a folder).
        const index = await firstExisting([join(path, 'index.ts'), join(path, 'index.js')]);
        if (!index)
          throw new PluginError(
            `plugin "${spec}" (BACKPLANE_PLUGINS): folder ${path} has neither a package.json nor an index.ts or index.js`,
          );
        sources.push({ label: spec, origin: 'config', entry: index, names: [spec, basename(path)] });
      } else if (await exists(path)) sources.push({ label: spec, origin: 'config', entry: path, names: [spec] });
      else throw new PluginError(`plugin "${spec}" (BACKPLANE_PLUGINS): no such file or folder: ${path}`);
      continue;
    }
    const path = findPackage(spec, projectRoot) ?? findPackage(spec, cwd);
    if (!path)
      throw new PluginError(
        `plugin "${spec}" (BACKPLANE_PLUGINS): cannot find package "${spec}"; is it installed (npm install ${spec})?`,
      );
    sources.push(packageSource(spec, 'config', path, (await readJson(path))!));
  }
  return sources;
}

/** All plugin sources in load order: built-in, then marked dependencies, then configured ones. */
export async function discoverPlugins(options: {
  projectRoot: string;
  configured: string[];
  cwd?: string;
}): Promise<PluginSource[]> {
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
