import { realpath, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { AppError } from '../../http/app-error.ts';
import { listDir } from '../../engine/index.ts';
import type { DirEntry, DirListing } from '../../agent-protocol/wire.ts';

interface Root {
  /** As configured (normalised): what an ancestor listing shows. */
  path: string;
  /** With every link resolved: what containment is checked against. */
  real: string;
}

/** `child` is `parent` or lies below it. */
function within(child: string, parent: string): boolean {
  return parent === '/' || child === parent || child.startsWith(`${parent}/`);
}

/** The real path of the deepest existing folder on the way to `path` (`/` at worst). */
async function nearestExisting(path: string): Promise<string> {
  for (let p = dirname(path); ; p = dirname(p)) {
    const real = await realpath(p).catch(() => null);
    if (real !== null || p === '/') return real ?? '/';
  }
}

async function existingRoots(configured: string[]): Promise<Root[]> {
  const roots = await Promise.all(
    configured.map(async (path) => ({ path, real: await realpath(path).catch(() => null) })),
  );
  return roots.filter((r): r is Root => r.real !== null);
}

/** The folders leading from an ancestor of some roots towards them: the way to the roots, nothing beside it. */
async function towardsRoots(path: string, roots: Root[]): Promise<DirListing | null> {
  const names = new Set<string>();
  for (const root of roots) {
    if (root.path === path || !within(root.path, path)) continue;
    names.add(root.path.slice(path === '/' ? 1 : path.length + 1).split('/')[0]!);
  }
  if (names.size === 0) return null;
  const entries: DirEntry[] = await Promise.all(
    [...names].sort().map(async (name) => {
      const full = join(path, name);
      const info = await stat(full).catch(() => undefined);
      return { name, path: full, isDir: true, size: 0, modifiedAt: info ? info.mtime.toISOString() : null };
    }),
  );
  return { path, entries, total: entries.length };
}

/**
 * Lists a folder of the master itself (the local node), confined to the configured roots
 * (BACKPLANE_LOCAL_FS_ROOTS): a folder inside a root is listed, its links leading out of every
 * root left out; an ancestor of roots shows only the folders leading to them (so a picker can
 * start at `/`); anything else is 403 NODE_FS_OUTSIDE_ROOTS, whether it exists or not. Links
 * are resolved before the check, so none leads out.
 */
export async function listLocalDir(rawPath: string, configuredRoots: string[]): Promise<DirListing> {
  const path = resolve('/', rawPath);
  const roots = await existingRoots(configuredRoots);
  const real = await realpath(path).catch(() => null);
  if (real !== null && roots.some((r) => within(real, r.real))) {
    try {
      return await listDir(path, {
        admitLink: async (full) => {
          const target = await realpath(full).catch(() => null);
          return target !== null && roots.some((r) => within(target, r.real));
        },
      });
    } catch (err) {
      throw new AppError('NODE_FS_FAILED', { message: (err as Error).message, cause: err });
    }
  }
  const ancestor = await towardsRoots(path, roots);
  if (ancestor) return ancestor;
  // Missing: "no such folder" only where the nearest existing folder lies inside a root (no oracle outside them).
  if (real === null && roots.some((r) => within(path, r.path))) {
    const existing = await nearestExisting(path);
    if (roots.some((r) => within(existing, r.real)))
      throw new AppError('NODE_FS_FAILED', { message: `No such folder: ${path}` });
  }
  throw new AppError('NODE_FS_OUTSIDE_ROOTS', {
    message: `${path} is outside the folders the master may show (BACKPLANE_LOCAL_FS_ROOTS: ${configuredRoots.join(', ') || 'none'}).`,
  });
}
