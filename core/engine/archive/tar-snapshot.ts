import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * GNU tar's snapshot file (`--listed-incremental`, format 2, tar 1.20 and newer): what a full
 * archive saw, and after a differential what that one saw. After its header line it is a list
 * of NUL-terminated fields: the time of the run (seconds, nanoseconds), then one record per
 * folder: NFS flag, modification time (seconds, nanoseconds), device, inode, the folder's
 * member name, then its contents ("dumpdir"), one name each prefixed with a flag, ended by an
 * empty field (and one more before the next record):
 *
 *   Y  a file archived by this run       N  a file present but not archived (unchanged, or excluded)
 *   D  a sub-folder
 *
 * A differential reads it to list the files it did not archive, so that its manifest holds the
 * whole tree as it was (backup-chain.ts in the master resolves them against the full's manifest).
 */

export interface SnapshotFolder {
  dev: string;
  ino: string;
  /** The member name of the folder (no leading `/`). */
  path: string;
  contents: Array<{ flag: string; name: string }>;
}

const HEADER = /^GNU tar-[\d.]+-2\n/;

export async function readSnapshotFolders(file: string): Promise<SnapshotFolder[]> {
  const buf = await readFile(file);
  const header = HEADER.exec(buf.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error(`${file} is not a GNU tar snapshot file of format 2`);
  let at = header[0].length;
  const field = (): string | undefined => {
    if (at >= buf.length) return undefined;
    const end = buf.indexOf(0, at);
    const stop = end === -1 ? buf.length : end;
    const text = buf.toString('utf8', at, stop);
    at = stop + 1;
    return text;
  };
  field(); // the run's time: seconds
  field(); // and nanoseconds
  const folders: SnapshotFolder[] = [];
  for (;;) {
    let nfs = field();
    if (nfs === '') nfs = field(); // the empty field between records
    if (nfs === undefined || nfs === '') return folders;
    field(); // modification time, seconds
    field(); // and nanoseconds
    const dev = field() ?? '';
    const ino = field() ?? '';
    const path = field() ?? '';
    const contents: SnapshotFolder['contents'] = [];
    for (let entry = field(); entry !== undefined && entry !== ''; entry = field())
      contents.push({ flag: entry[0]!, name: entry.slice(1) });
    folders.push({ dev, ino, path, contents });
  }
}

/** A file a differential did not archive: its path now, and where the full archived it (a renamed folder moves it). */
export interface CarriedEntry {
  path: string;
  from: string;
}

/**
 * The files a differential left out because the full holds them (`N`), each with the path the
 * full knew it by: tar recognises a renamed folder by its device and inode, and so does this.
 * In batches, so a tree of millions of unchanged files is never one array.
 */
export async function* carriedEntries(updated: string, base: string, batchSize = 1000): AsyncGenerator<CarriedEntry[]> {
  const before = new Map<string, string>();
  for (const folder of await readSnapshotFolders(base)) before.set(`${folder.dev}:${folder.ino}`, folder.path);
  let batch: CarriedEntry[] = [];
  for (const folder of await readSnapshotFolders(updated)) {
    const was = before.get(`${folder.dev}:${folder.ino}`) ?? folder.path;
    for (const { flag, name } of folder.contents) {
      if (flag !== 'N') continue;
      batch.push({ path: join(folder.path, name), from: join(was, name) });
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

function join(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

/** A snapshot file's SHA-256 (hex): how the master and an agent tell that a copy is the one stored. */
export function snapshotChecksum(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
