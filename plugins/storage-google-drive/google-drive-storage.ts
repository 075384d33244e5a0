import { randomBytes } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { OAuth2Client } from 'google-auth-library';
import type { drive_v3 } from '@googleapis/drive';
import {
  ProviderError,
  type ObjectInfo,
  type ProviderDeps,
  type StorageInstance,
  type TestResult,
} from '@backplane/plugin-api';
import type { GoogleEndpoints } from './endpoints.ts';
import { toProviderError } from './errors.ts';
import { REQUEST_TIMEOUT_MS, driveClient, oauthClient, type DriveSettings } from './google-client.ts';
import { allChildren, deleteItem, isFolder, newerFirst, type DriveItem } from './drive-files.ts';
import { FolderTree } from './folder-tree.ts';
import { PROBE_NAME, splitKey, splitPrefix } from './keys.ts';
import { ResumableUpload, type UploadTuning } from './resumable-upload.ts';

/** Google Docs, Sheets, shortcuts...: no bytes to back up, never objects of this provider. */
const GOOGLE_APPS = 'application/vnd.google-apps.';
/** Keys are at most 4096 characters, so no folder chain can be deeper than this. */
const MAX_DEPTH = 2048;

function isObject(item: DriveItem): boolean {
  return !item.mimeType.startsWith(GOOGLE_APPS);
}

function info(key: string, item: DriveItem): ObjectInfo {
  const modified = new Date(item.modifiedTime);
  return { key, size: item.size, ...(Number.isNaN(modified.getTime()) ? {} : { modifiedAt: modified }) };
}

/** Skips `skip` bytes and passes at most `length` (for a server that ignored the Range header). */
function slice(source: Readable, skip: number, length: number): Readable {
  let seen = 0;
  let finished = false;
  const out = new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (finished) return done();
      const from = Math.max(0, skip - seen);
      const to = Math.min(chunk.length, skip + length - seen);
      seen += chunk.length;
      if (to > from) this.push(chunk.subarray(from, to));
      if (seen >= skip + length) {
        finished = true;
        this.push(null);
        source.destroy();
      }
      done();
    },
  });
  source.on('error', (err) => {
    if (!finished) out.destroy(err);
  });
  out.on('close', () => source.destroy());
  return source.pipe(out);
}

/** One Google Drive target: keys are folder paths below the base folder, objects are files. */
export class GoogleDriveStorage implements StorageInstance {
  readonly #settings: DriveSettings;
  readonly #endpoints: GoogleEndpoints;
  readonly #auth: OAuth2Client;
  readonly #drive: drive_v3.Drive;
  readonly #folders: FolderTree;
  readonly #tuning: UploadTuning;
  readonly #log: ProviderDeps['log'];

  static async open(
    settings: DriveSettings,
    endpoints: GoogleEndpoints,
    tuning: UploadTuning,
    log: ProviderDeps['log'],
  ): Promise<GoogleDriveStorage> {
    const auth = oauthClient(settings, endpoints);
    return new GoogleDriveStorage(settings, endpoints, auth, await driveClient(auth, endpoints), tuning, log);
  }

  private constructor(
    settings: DriveSettings,
    endpoints: GoogleEndpoints,
    auth: OAuth2Client,
    drive: drive_v3.Drive,
    tuning: UploadTuning,
    log: ProviderDeps['log'],
  ) {
    this.#settings = settings;
    this.#endpoints = endpoints;
    this.#tuning = tuning;
    this.#log = log;
    this.#auth = auth;
    this.#drive = drive;
    this.#folders = new FolderTree(drive, settings.folderId);
  }

  #authorised(): void {
    if (!this.#settings.refreshToken) {
      throw new ProviderError(
        'auth',
        'google drive: the target is not authorised yet; connect it to a Google account first',
      );
    }
  }

  async put(
    key: string,
    body: Readable,
    meta: { size?: number; contentType?: string; signal?: AbortSignal } = {},
  ): Promise<{ size: number }> {
    const { folders, name } = splitKey(key);
    if (meta.size !== undefined && (!Number.isSafeInteger(meta.size) || meta.size < 0))
      throw new ProviderError('permanent', `google drive: invalid size ${String(meta.size)}`);
    this.#authorised();
    const { signal } = meta;
    if (signal?.aborted)
      throw new ProviderError('permanent', `google drive: upload of ${JSON.stringify(key)} was aborted`, {
        cause: signal.reason,
      });
    const request = (parentId: string) =>
      new ResumableUpload(
        this.#auth,
        this.#endpoints.apiUrl,
        {
          name,
          parentId,
          // A Google Docs type would make Drive convert the bytes into a document.
          contentType:
            meta.contentType && !meta.contentType.startsWith(GOOGLE_APPS)
              ? meta.contentType
              : 'application/octet-stream',
          ...(meta.size === undefined ? {} : { size: meta.size }),
          ...(signal ? { signal } : {}),
        },
        this.#tuning,
      );

    let parentId = await this.#folders.ensure(folders);
    let upload = request(parentId);
    try {
      await upload.open();
    } catch (err) {
      // A cached folder deleted behind this instance's back: Drive refuses the session (404)
      // before a byte was read, so look the folders up afresh and try once more.
      if (!(err instanceof ProviderError && err.kind === 'not_found')) throw err;
      this.#folders.forget();
      parentId = await this.#folders.ensure(folders);
      upload = request(parentId);
      await upload.open();
    }
    const item = await upload.send(body);
    await this.#dropOlder(parentId, item, key);
    return { size: item.size };
  }

  /** Removes the copies `item` replaces: only older ones, so of racing writers the newest survives. */
  async #dropOlder(parentId: string, item: DriveItem, key: string): Promise<void> {
    try {
      for (const other of await allChildren(this.#drive, parentId, { name: item.name, folders: false })) {
        if (other.id !== item.id && newerFirst(item, other) < 0) await deleteItem(this.#drive, other.id);
      }
    } catch (err) {
      // The new object is complete and is what every reader picks; an old copy only costs space
      // until the next write or delete of the key.
      this.#log.warn(
        `google drive: ${key} was written, but an older copy could not be removed: ${toProviderError(err, 'cleanup').message}`,
      );
    }
  }

  /** The file under `key` (the newest of same-named ones), or undefined. */
  async #find(folders: string[], name: string): Promise<DriveItem | undefined> {
    const parentId = await this.#folders.find(folders);
    if (parentId === undefined) return undefined;
    const items = (await allChildren(this.#drive, parentId, { name, folders: false })).filter(isObject);
    return items.sort(newerFirst)[0];
  }

  async get(key: string, range?: { start: number; end?: number }): Promise<Readable> {
    const { folders, name } = splitKey(key);
    if (range) {
      const { start, end } = range;
      if (
        !Number.isSafeInteger(start) ||
        start < 0 ||
        (end !== undefined && (!Number.isSafeInteger(end) || end < start))
      ) {
        throw new ProviderError('permanent', `google drive: invalid range ${JSON.stringify(range)}`);
      }
    }
    this.#authorised();
    // Twice at most: a concurrent put may replace (and delete) the file between lookup and read.
    for (let attempt = 1; ; attempt++) {
      const item = await this.#find(folders, name);
      if (!item) throw new ProviderError('not_found', `google drive: no object ${JSON.stringify(key)}`);
      try {
        return await this.#download(item, range);
      } catch (err) {
        const error = toProviderError(err, `reading ${JSON.stringify(key)}`);
        if (error.kind !== 'not_found' || attempt >= 2) throw error;
      }
    }
  }

  async #download(item: DriveItem, range: { start: number; end?: number } | undefined): Promise<Readable> {
    const start = range?.start ?? 0;
    if (start >= item.size) return Readable.from([]);
    const end = Math.min(range?.end ?? item.size - 1, item.size - 1);
    const ranged = start > 0 || end < item.size - 1;
    // A deadline for the answer only: once the bytes flow, the reader sets the pace.
    const answered = new AbortController();
    const timer = setTimeout(() => answered.abort(new Error('no answer from Drive')), REQUEST_TIMEOUT_MS);
    let res;
    try {
      res = await this.#drive.files.get(
        { fileId: item.id, alt: 'media' },
        {
          responseType: 'stream',
          timeout: 0,
          signal: answered.signal,
          ...(ranged ? { headers: { Range: `bytes=${start}-${end}` } } : {}),
        },
      );
    } finally {
      clearTimeout(timer);
    }
    const data = res.data as unknown;
    const stream = data instanceof Readable ? data : Readable.fromWeb(data as WebReadableStream<Uint8Array>);
    // 206: exactly the range. 200 to a ranged request: the whole file, so cut it here.
    return ranged && res.status !== 206 ? slice(stream, start, end - start + 1) : stream;
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    const { folders, partial } = splitPrefix(prefix);
    this.#authorised();
    const start = await this.#folders.find(folders);
    if (start === undefined) return;
    // Same-named folders (Drive allows them) are walked as one, so a key is listed once.
    const queue: { ids: string[]; path: string; partial: string; depth: number }[] = [
      { ids: [start], path: folders.length ? `${folders.join('/')}/` : '', partial, depth: folders.length },
    ];
    while (queue.length > 0) {
      const { ids, path, partial: startOfName, depth } = queue.shift()!;
      const files = new Map<string, DriveItem>();
      const subfolders = new Map<string, string[]>();
      for (const id of ids) {
        for (const item of await allChildren(this.#drive, id)) {
          if (!item.name.startsWith(startOfName)) continue;
          if (isFolder(item)) {
            subfolders.set(item.name, [...(subfolders.get(item.name) ?? []), item.id]);
          } else if (isObject(item) && !PROBE_NAME.test(item.name)) {
            const known = files.get(item.name);
            if (!known || newerFirst(item, known) < 0) files.set(item.name, item);
          }
        }
      }
      for (const [fileName, item] of files) yield info(`${path}${fileName}`, item);
      if (depth + 1 > MAX_DEPTH) continue;
      for (const [folderName, folderIds] of subfolders)
        queue.push({ ids: folderIds, path: `${path}${folderName}/`, partial: '', depth: depth + 1 });
    }
  }

  async stat(key: string): Promise<ObjectInfo | undefined> {
    const { folders, name } = splitKey(key);
    this.#authorised();
    const item = await this.#find(folders, name);
    return item ? info(key, item) : undefined;
  }

  async delete(key: string): Promise<void> {
    const { folders, name } = splitKey(key);
    this.#authorised();
    const parentId = await this.#folders.find(folders);
    if (parentId === undefined) return;
    // Every copy under the name, so no older one resurfaces.
    for (const item of await allChildren(this.#drive, parentId, { name, folders: false })) {
      if (isObject(item)) await deleteItem(this.#drive, item.id);
    }
  }

  async usage(): Promise<{ usedBytes?: number; totalBytes?: number; freeBytes?: number }> {
    this.#authorised();
    let quota: drive_v3.Schema$About['storageQuota'];
    try {
      ({
        data: { storageQuota: quota },
      } = await this.#drive.about.get({ fields: 'storageQuota(limit,usage)' }, { timeout: REQUEST_TIMEOUT_MS }));
    } catch (err) {
      throw toProviderError(err, 'reading the storage quota');
    }
    const count = (v: string | null | undefined) =>
      v === undefined || v === null || !/^\d+$/.test(v) ? undefined : Number(v);
    const used = count(quota?.usage);
    const total = count(quota?.limit); // absent: an unlimited plan
    return {
      ...(used === undefined ? {} : { usedBytes: used }),
      ...(total === undefined ? {} : { totalBytes: total }),
      ...(total === undefined || used === undefined ? {} : { freeBytes: Math.max(0, total - used) }),
    };
  }

  async testConnection(): Promise<TestResult> {
    try {
      this.#authorised();
      let email: string;
      try {
        const { data } = await this.#drive.about.get(
          { fields: 'user(emailAddress,displayName)' },
          { timeout: REQUEST_TIMEOUT_MS },
        );
        email = data.user?.emailAddress ?? data.user?.displayName ?? 'an unnamed account';
      } catch (err) {
        throw toProviderError(err, 'reading the account');
      }
      const base = await this.#folders.base();
      let probeId: string | null | undefined;
      try {
        // A small multipart upload and its removal: proves the folder is writable.
        ({
          data: { id: probeId },
        } = await this.#drive.files.create(
          {
            requestBody: { name: `.backplane-probe-${randomBytes(16).toString('hex')}`, parents: [base] },
            media: { mimeType: 'text/plain', body: 'Backplane connection test. Safe to delete.\n' },
            fields: 'id',
          },
          { timeout: REQUEST_TIMEOUT_MS, rootUrl: this.#endpoints.apiUrl },
        )); // see driveClient()
      } catch (err) {
        throw toProviderError(err, 'writing a test file');
      }
      if (probeId) await deleteItem(this.#drive, probeId);
      return { success: true, message: `Connected to Google Drive as ${email}; the backup folder is writable.` };
    } catch (err) {
      const error = toProviderError(err, 'connection test');
      const hint = error.kind === 'auth' ? ' Authorise the target again.' : '';
      return { success: false, message: `${error.message}${hint}` };
    }
  }

  async close(): Promise<void> {
    this.#folders.forget();
  }
}
