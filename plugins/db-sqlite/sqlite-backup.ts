import { randomBytes } from 'node:crypto';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { backup, DatabaseSync } from 'node:sqlite';
import { finished } from 'node:stream/promises';

/**
 * A consistent online copy of a live SQLite file, as a stream.
 *
 * The SQLite online-backup API (node:sqlite `backup()`, the same call as better-sqlite3's
 * `db.backup()` and the sqlite3 shell's `.backup`) copies the pages under a read transaction,
 * so writers in other processes (WAL or rollback journal) never yield a torn copy. `rate` is
 * large enough to copy every page in one step: one read transaction, so concurrent writers can
 * never make it restart forever. Unlike VACUUM INTO, the copy is page-for-page (same page
 * size, auto_vacuum and freelist), i.e. exactly what the stock `.backup` command produces.
 *
 * The copy goes to a temp file that is unlinked as soon as it is opened, so nothing is left
 * behind even if the process dies mid-stream; the open descriptor keeps the bytes readable.
 */
export async function backupToStream(
  sourcePath: string,
  tempDir: string,
): Promise<{ stream: Readable; done: Promise<void> }> {
  const temp = join(tempDir, `backplane-sqlite-${randomBytes(8).toString('hex')}.db`);
  const source = new DatabaseSync(sourcePath, { readOnly: true });
  try {
    await backup(source, temp, { rate: 2_000_000_000 });
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  } finally {
    source.close();
  }
  const handle = await open(temp, 'r');
  await unlink(temp);
  const stream = handle.createReadStream({ highWaterMark: 1024 * 1024 });
  // finally() waits for the promise its callback returns: `done` settles once the handle is closed.
  // oxlint-disable-next-line typescript/no-misused-promises
  const done = finished(stream).finally(() => handle.close().catch(() => undefined));
  done.catch(() => undefined);
  return { stream, done };
}
