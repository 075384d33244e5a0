import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run build -w @backplane/console` writes the console in this installation. */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../../packages/console/dist', import.meta.url));

/** Vite's content-hashed output: the only files that may be cached for good. */
export const ASSETS_FOLDER = 'assets';

export interface ConsoleBuild {
  dir: string;
  indexFile: string;
  assetsDir: string;
  /** Other files of the build (Vite copies `public/` there: favicon, robots.txt), as URL paths without the leading slash. */
  otherFiles: string[];
}

/** The console's build in `dir`, or null when it holds no index.html (not built). */
export async function readConsoleBuild(dir: string): Promise<ConsoleBuild | null> {
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) return null;
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const otherFiles = entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((file) => file !== 'index.html' && !file.startsWith(`${ASSETS_FOLDER}/`))
    .sort();
  return { dir, indexFile, assetsDir: join(dir, ASSETS_FOLDER), otherFiles };
}
