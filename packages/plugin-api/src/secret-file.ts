import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A credential handed to one program as a file it reads (a pgpass file, a MySQL option file)
 * instead of an environment variable: a variable is inherited by everything the program starts
 * and sits in /proc/PID/environ of each, while a file is read by the one program pointed at it.
 */
export interface SecretFile {
  /** The file, mode 0600, alone in a folder of its own (mode 0700). */
  readonly path: string;
  /** Removes the file and its folder; calling it again does nothing. */
  remove(): Promise<void>;
}

/**
 * Writes `content` to a new file `name` in a new private folder under `parent` (created when
 * missing, 0700): the folder's random name is made by mkdtemp, so nobody can have prepared it,
 * and the file is created exclusively with mode 0600. Remove it once the program exited.
 */
export async function writeSecretFile(parent: string, name: string, content: string): Promise<SecretFile> {
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(parent, 'secret-'));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  try {
    // mkdtemp makes the folder 0700 already; said again, so a platform or a future Node doing otherwise cannot widen it.
    await chmod(dir, 0o700);
    const path = join(dir, name);
    await writeFile(path, content, { mode: 0o600, flag: 'wx' });
    return { path, remove };
  } catch (err) {
    await remove().catch(() => undefined);
    throw err;
  }
}
