import { lstat, mkdir, realpath, rm, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';

/**
 * Paths under a restore root that are never reached through a symbolic link leading outside it.
 * Folders are made one level at a time, each component checked with `lstat` first, so a refusal
 * leaves not even an empty folder elsewhere. Links that stay inside the root are followed (a
 * restore to `/` goes through `/lib -> usr/lib`). Shared by the extraction (safe-extract.ts) and
 * the move of a staged restore into place (staged-restore.ts).
 */

export function within(root: string, path: string): boolean {
  return root === sep ? path.startsWith(sep) : path === root || path.startsWith(root + sep);
}

export const missing = (err: unknown): undefined => {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw err;
};

export class RootedFolders {
  readonly #root: string;
  readonly #realRoot: string;
  // Archive folder path -> the real folder it was proven to be, inside the root. Anything that
  // could change what a path resolves to (a link, a replaced folder or file) clears it.
  readonly #folders = new Map<string, string>();

  /** `root` as given (for messages) and its real path. */
  constructor(root: string, realRoot: string) {
    this.#root = root;
    this.#realRoot = realRoot;
    this.forget();
  }

  forget(): void {
    this.#folders.clear();
    this.#folders.set('', this.#realRoot);
  }

  /** Records that archive folder `rel` is the real folder `real` (just created or checked). */
  know(rel: string, real: string): void {
    this.#folders.set(rel, real);
  }

  async #step(path: string): Promise<string> {
    let st = await lstat(path).catch(missing);
    if (!st) {
      // One level only: the parent is a real folder inside the root, so this creates nothing elsewhere.
      await mkdir(path).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      });
      st = await lstat(path);
    }
    if (st.isDirectory()) return path;
    if (st.isSymbolicLink()) {
      const target = await realpath(path).catch(missing);
      if (target === undefined)
        throw new Error(`refused: ${path} is a link to nothing; no folder is created through it`);
      if (!within(this.#realRoot, target))
        throw new Error(`refused: ${path} is a link that leads outside ${this.#root}`);
      if (!(await stat(target)).isDirectory()) throw new Error(`${path} is a link to something that is not a folder`);
      return target;
    }
    throw new Error(`${path} is in the way of a folder and is not one`);
  }

  /** The real folder for an archive folder path, created one component at a time. */
  async folder(rel: string): Promise<string> {
    const known = this.#folders.get(rel);
    if (known !== undefined) return known;
    const cut = rel.lastIndexOf('/');
    const real = await this.#step(join(await this.folder(cut < 0 ? '' : rel.slice(0, cut)), rel.slice(cut + 1)));
    this.#folders.set(rel, real);
    return real;
  }

  /** Where an entry goes: its name in the real folder of its parent. */
  async placeOf(name: string): Promise<string> {
    const cut = name.lastIndexOf('/');
    return join(await this.folder(cut < 0 ? '' : name.slice(0, cut)), name.slice(cut + 1));
  }
}

/** Removes what is at `dest` so a new entry is created there, never opened through or into. */
export async function clearPlace(dest: string, keepFolder: boolean): Promise<void> {
  const existing = await lstat(dest).catch(missing);
  if (!existing || (keepFolder && existing.isDirectory())) return;
  await rm(dest, { recursive: existing.isDirectory(), force: true });
}
