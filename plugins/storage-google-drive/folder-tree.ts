import type { drive_v3 } from '@googleapis/drive';
import { ProviderError } from '@backplane/plugin-api';
import {
  allChildren,
  createFolder,
  deleteItem,
  FOLDER_MIME,
  getItem,
  newerFirst,
  type DriveItem,
} from './drive-files.ts';

/** The folder in My Drive that holds the backups when the target names none. */
export const DEFAULT_FOLDER_NAME = 'Backplane';

/** Among same-named folders the oldest one is *the* folder (every writer converges on it). */
function oldest(items: DriveItem[]): DriveItem | undefined {
  return [...items].sort(newerFirst).at(-1);
}

/**
 * Key folders to Drive folder ids, per instance. Positive answers are cached (an id does not
 * change); misses are not (another writer may create the folder any time). Creation is shared
 * between concurrent callers of this instance, and after creating a folder the tree looks
 * again: if another process created the same folder at the same time, everyone keeps the
 * oldest and the loser removes its own, still empty, copy.
 */
export class FolderTree {
  readonly #drive: drive_v3.Drive;
  readonly #configured: string | undefined;
  #base: Promise<string> | undefined;
  readonly #ids = new Map<string, string>();
  readonly #creating = new Map<string, Promise<string>>();

  constructor(drive: drive_v3.Drive, folderId: string | undefined) {
    this.#drive = drive;
    this.#configured = folderId;
  }

  /** The id of the base folder (checked, or found/created in My Drive), once per instance. */
  base(): Promise<string> {
    this.#base ??= this.#resolveBase().catch((err: unknown) => {
      this.#base = undefined;
      throw err;
    });
    return this.#base;
  }

  /** The base folder if it exists: reads never create the default folder. */
  async #existingBase(): Promise<string | undefined> {
    if (this.#base || this.#configured !== undefined) return this.base();
    const found = oldest(await allChildren(this.#drive, 'root', { name: DEFAULT_FOLDER_NAME, folders: true }));
    if (!found) return undefined;
    this.#base ??= Promise.resolve(found.id);
    return this.#base;
  }

  /** Drops every cached id (after Drive reported one of them missing). */
  forget(): void {
    this.#base = undefined;
    this.#ids.clear();
  }

  /** The folder for these key segments, or undefined when some part does not exist. */
  async find(segments: string[]): Promise<string | undefined> {
    let parent = await this.#existingBase();
    if (parent === undefined) return undefined;
    for (let i = 0; i < segments.length; i++) {
      const path = segments.slice(0, i + 1).join('/');
      let id = this.#ids.get(path);
      if (id === undefined) {
        id = oldest(await allChildren(this.#drive, parent, { name: segments[i]!, folders: true }))?.id;
        if (id === undefined) return undefined;
        this.#ids.set(path, id);
      }
      parent = id;
    }
    return parent;
  }

  /** The folder for these key segments, creating what is missing. */
  async ensure(segments: string[]): Promise<string> {
    let parent = await this.base();
    for (let i = 0; i < segments.length; i++) {
      const path = segments.slice(0, i + 1).join('/');
      let id = this.#ids.get(path);
      if (id === undefined) {
        let pending = this.#creating.get(path);
        if (!pending) {
          pending = this.#findOrCreate(parent, segments[i]!).finally(() => this.#creating.delete(path));
          this.#creating.set(path, pending);
        }
        id = await pending;
        this.#ids.set(path, id);
      }
      parent = id;
    }
    return parent;
  }

  async #findOrCreate(parent: string, name: string): Promise<string> {
    const existing = oldest(await allChildren(this.#drive, parent, { name, folders: true }));
    if (existing) return existing.id;
    const created = await createFolder(this.#drive, parent, name);
    const winner = oldest(await allChildren(this.#drive, parent, { name, folders: true })) ?? created;
    if (winner.id !== created.id) {
      // Deleting a Drive folder deletes what is in it: remove the spare copy only while empty.
      const empty = await allChildren(this.#drive, created.id).then(
        (items) => items.length === 0,
        () => false,
      );
      if (empty) await deleteItem(this.#drive, created.id).catch(() => undefined);
    }
    return winner.id;
  }

  async #resolveBase(): Promise<string> {
    if (this.#configured !== undefined) {
      let item: drive_v3.Schema$File;
      try {
        item = await getItem(this.#drive, this.#configured);
      } catch (err) {
        if (err instanceof ProviderError && err.kind === 'not_found') {
          throw new ProviderError(
            'permanent',
            `google drive: folder ${this.#configured} does not exist or Backplane may not see it ` +
              '(with the drive.file scope Backplane sees only folders it created itself; leave folderId empty to use its own folder)',
            { cause: err },
          );
        }
        throw err;
      }
      if (item.mimeType !== FOLDER_MIME)
        throw new ProviderError(
          'permanent',
          `google drive: ${this.#configured} is not a folder (it is ${item.mimeType ?? 'unknown'})`,
        );
      if (item.trashed)
        throw new ProviderError('permanent', `google drive: folder ${this.#configured} is in the trash`);
      return this.#configured;
    }
    return this.#findOrCreate('root', DEFAULT_FOLDER_NAME);
  }
}
