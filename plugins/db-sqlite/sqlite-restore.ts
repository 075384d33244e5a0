import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DatabaseSync } from 'node:sqlite';
import { ProviderError } from '@backplane/plugin-api';

/** Opens the file and runs `pragma integrity_check`; refuses anything that is not a sound SQLite database. */
export function verifySqliteFile(path: string): void {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path);
    const rows = db.prepare('PRAGMA integrity_check').all() as Array<Record<string, unknown>>;
    const verdict = rows.map((row) => String(Object.values(row)[0])).join('; ');
    if (verdict !== 'ok')
      throw new ProviderError('permanent', `sqlite: the restored file fails integrity_check: ${verdict.slice(0, 300)}`);
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    throw new ProviderError(
      'permanent',
      `sqlite: the stream is not a valid SQLite database: ${(err as Error).message}`,
      { cause: err },
    );
  } finally {
    db?.close();
  }
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `target` with the database in `stream`, all or nothing: the bytes go to a temp file
 * beside the target (same file system, so the rename is atomic), which is checked, fsynced and
 * renamed over the target; the folder is fsynced so the rename survives a crash. A stale `-wal`
 * of the old file would be replayed onto the new one, so it (and `-shm`) is removed first.
 * Nothing may hold the target open while it is replaced (stop the application first).
 */
export async function restoreFromStream(stream: Readable, target: string): Promise<void> {
  const folder = dirname(target);
  const temp = join(folder, `.${basename(target)}.${randomBytes(8).toString('hex')}.restore`);
  try {
    await pipeline(stream, createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
    verifySqliteFile(temp);
    await rm(`${temp}-wal`, { force: true });
    await rm(`${temp}-shm`, { force: true });
    await fsyncPath(temp);
    await rm(`${target}-wal`, { force: true });
    await rm(`${target}-shm`, { force: true });
    await rename(temp, target);
    await fsyncPath(folder);
  } catch (err) {
    await rm(temp, { force: true });
    await rm(`${temp}-wal`, { force: true });
    await rm(`${temp}-shm`, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new ProviderError('not_found', `sqlite: cannot restore to ${target}: the folder does not exist`, {
        cause: err,
      });
    if (code === 'EACCES' || code === 'EPERM')
      throw new ProviderError('auth', `sqlite: cannot restore to ${target}: ${(err as Error).message}`, { cause: err });
    throw err;
  }
}
