import type { ObjectInfo } from '@backplane/plugin-api';

/** One entry of `rclone lsjson` (the fields read here). */
export interface LsjsonEntry {
  Path?: string;
  Size?: number;
  ModTime?: string;
  IsDir?: boolean;
}

function toDate(text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The object an entry describes, under `key`; a size rclone does not know is -1. */
export function objectInfo(key: string, entry: LsjsonEntry): ObjectInfo {
  const modifiedAt = toDate(entry.ModTime);
  return { key, size: typeof entry.Size === 'number' ? entry.Size : -1, ...(modifiedAt ? { modifiedAt } : {}) };
}
