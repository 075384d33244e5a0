import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AppModule } from './lib/app-module.ts';

const CORE = import.meta.dirname;

/**
 * Every module of the master: each folder of core/ and of core/features/ that holds a
 * `module.ts` (core/lib/app-module.ts), and each folder under `extraDirs` that does (tests add
 * a feature this way). Adding a feature is adding its folder. Sorted by name, so the order
 * does not depend on the file system; `last` modules come after the others.
 */
export async function loadModules(extraDirs: readonly string[] = []): Promise<AppModule[]> {
  const files: string[] = [];
  for (const dir of [CORE, join(CORE, 'features'), ...extraDirs]) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name, 'module.ts');
      if (entry.isDirectory() && existsSync(file)) files.push(file);
    }
  }
  const modules = await Promise.all(
    files.map(async (file) => {
      const loaded = (await import(pathToFileURL(file).href)) as { default?: AppModule };
      if (!loaded.default?.name) throw new Error(`${file} has no default export from defineModule()`);
      return loaded.default;
    }),
  );
  const names = new Set<string>();
  for (const m of modules) {
    if (names.has(m.name)) throw new Error(`two modules are named "${m.name}"`);
    names.add(m.name);
  }
  return modules.sort((a, b) => Number(a.last ?? false) - Number(b.last ?? false) || a.name.localeCompare(b.name));
}
