import type { drive_v3 } from '@googleapis/drive';
import { ProviderError } from '@backplane/plugin-api';
import { toProviderError } from './errors.ts';
import { REQUEST_TIMEOUT_MS } from './google-client.ts';
import { quote } from './keys.ts';

/** Thin, typed wrappers over the few Drive v3 calls the provider makes. */

export const FOLDER_MIME = 'application/vnd.google-apps.folder';
/** The fields every listing and upload asks for (Drive returns only id/name/mimeType otherwise). */
export const ITEM_FIELDS = 'id,name,mimeType,size,createdTime,modifiedTime';
const PAGE_SIZE = 1000;
/** A folder with more pages than this (a million entries) is refused rather than walked forever. */
const MAX_PAGES = 1000;

export interface DriveItem {
  id: string;
  name: string;
  mimeType: string;
  size: number;
  createdTime: string;
  modifiedTime: string;
}

export function isFolder(item: DriveItem): boolean {
  return item.mimeType === FOLDER_MIME;
}

export function toItem(file: drive_v3.Schema$File): DriveItem {
  if (!file.id || typeof file.name !== 'string')
    throw new ProviderError('permanent', 'google drive: Drive answered with a file without id or name');
  const size = file.size === undefined || file.size === null ? 0 : Number(file.size);
  return {
    id: file.id,
    name: file.name,
    mimeType: file.mimeType ?? 'application/octet-stream',
    size: Number.isSafeInteger(size) && size >= 0 ? size : 0,
    createdTime: file.createdTime ?? '',
    modifiedTime: file.modifiedTime ?? file.createdTime ?? '',
  };
}

/**
 * A total order on same-named items: later creation first, then the larger id. Every reader and
 * writer picks the same one among duplicates (Drive allows several items with one name).
 */
export function newerFirst(a: DriveItem, b: DriveItem): number {
  if (a.createdTime !== b.createdTime) return a.createdTime > b.createdTime ? -1 : 1;
  return a.id === b.id ? 0 : a.id > b.id ? -1 : 1;
}

/** The children of a folder matching the filter, page by page. */
export async function* children(
  drive: drive_v3.Drive,
  parentId: string,
  filter: { name?: string; folders?: boolean } = {},
): AsyncGenerator<DriveItem> {
  const clauses = [`${quote(parentId)} in parents`, 'trashed = false'];
  if (filter.name !== undefined) clauses.unshift(`name = ${quote(filter.name)}`);
  if (filter.folders === true) clauses.push(`mimeType = ${quote(FOLDER_MIME)}`);
  if (filter.folders === false) clauses.push(`mimeType != ${quote(FOLDER_MIME)}`);
  const q = clauses.join(' and ');
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    let data: drive_v3.Schema$FileList;
    try {
      ({ data } = await drive.files.list(
        {
          q,
          fields: `nextPageToken,files(${ITEM_FIELDS})`,
          pageSize: PAGE_SIZE,
          spaces: 'drive',
          ...(pageToken === undefined ? {} : { pageToken }),
        },
        { timeout: REQUEST_TIMEOUT_MS },
      ));
    } catch (err) {
      throw toProviderError(err, 'listing a folder');
    }
    for (const file of data.files ?? []) yield toItem(file);
    if (!data.nextPageToken || data.nextPageToken === pageToken) return;
    pageToken = data.nextPageToken;
  }
  throw new ProviderError(
    'permanent',
    `google drive: folder ${parentId} has more than ${MAX_PAGES * PAGE_SIZE} entries`,
  );
}

export async function allChildren(
  drive: drive_v3.Drive,
  parentId: string,
  filter: { name?: string; folders?: boolean } = {},
): Promise<DriveItem[]> {
  const items: DriveItem[] = [];
  for await (const item of children(drive, parentId, filter)) items.push(item);
  return items;
}

export async function createFolder(drive: drive_v3.Drive, parentId: string, name: string): Promise<DriveItem> {
  try {
    const { data } = await drive.files.create(
      {
        requestBody: { name, mimeType: FOLDER_MIME, parents: [parentId] },
        fields: ITEM_FIELDS,
      },
      { timeout: REQUEST_TIMEOUT_MS },
    );
    return toItem(data);
  } catch (err) {
    throw toProviderError(err, `creating folder ${JSON.stringify(name)}`);
  }
}

export async function getItem(drive: drive_v3.Drive, fileId: string): Promise<drive_v3.Schema$File> {
  try {
    const { data } = await drive.files.get(
      { fileId, fields: `${ITEM_FIELDS},trashed` },
      { timeout: REQUEST_TIMEOUT_MS },
    );
    return data;
  } catch (err) {
    throw toProviderError(err, `reading item ${fileId}`);
  }
}

/** Deletes permanently (not to the trash: backups must free their space); a missing item is fine. */
export async function deleteItem(drive: drive_v3.Drive, fileId: string): Promise<void> {
  try {
    await drive.files.delete({ fileId }, { timeout: REQUEST_TIMEOUT_MS });
  } catch (err) {
    const error = toProviderError(err, `deleting item ${fileId}`);
    if (error.kind !== 'not_found') throw error;
  }
}
