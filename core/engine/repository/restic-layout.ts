/**
 * Where a restic repository's files live on a storage target: restic's own "default layout"
 * (the one its local and sftp backends use), so the stock restic can open the same folder
 * directly: `<prefix>/config`, `<prefix>/data/<first two hex digits>/<id>` and
 * `<prefix>/{keys,locks,snapshots,index}/<id>`.
 */

/** The folders of a repository; `data` holds the packs, one level of subfolders deep. */
export const RESTIC_FILE_TYPES = ['data', 'keys', 'locks', 'snapshots', 'index'] as const;
export type ResticFileType = (typeof RESTIC_FILE_TYPES)[number];

/** A file of the repository: its config, or an object named by the SHA-256 of its content. */
export type ResticFile = { type: 'config' } | { type: ResticFileType; id: string };

/** restic names every file but the config by its SHA-256: 64 lowercase hex digits, nothing else. */
const ID = /^[0-9a-f]{64}$/;

export function isResticFileType(name: string): name is ResticFileType {
  return (RESTIC_FILE_TYPES as readonly string[]).includes(name);
}

export function isResticId(name: string): boolean {
  return ID.test(name);
}

/**
 * The repository's folder key as the layout uses it: no leading, trailing or doubled slash, no
 * `.` or `..` segment ('' is the target's root). Throws on anything else: a prefix comes from
 * Backplane's own settings, so a bad one is a bug to stop at, not a request to answer.
 */
export function repositoryPrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  if (trimmed === '') return '';
  const bad = trimmed.split('/').find((s) => s === '' || s === '.' || s === '..' || s.includes('\\'));
  if (bad !== undefined || trimmed.startsWith('/'))
    throw new TypeError(`invalid repository prefix ${JSON.stringify(prefix)}`);
  return trimmed;
}

function under(prefix: string, rest: string): string {
  return prefix === '' ? rest : `${prefix}/${rest}`;
}

/** The storage key of one file; `prefix` as repositoryPrefix returns it, `id` already checked. */
export function resticKey(prefix: string, file: ResticFile): string {
  if (file.type === 'config') return under(prefix, 'config');
  if (!isResticId(file.id)) throw new TypeError(`invalid restic id ${JSON.stringify(file.id)}`);
  if (file.type === 'data') return under(prefix, `data/${file.id.slice(0, 2)}/${file.id}`);
  return under(prefix, `${file.type}/${file.id}`);
}

/** The list prefix that covers every file of one type. */
export function resticListPrefix(prefix: string, type: ResticFileType): string {
  return under(prefix, `${type}/`);
}

/**
 * The id of a listed key when it is a file of `type` exactly where the layout puts it, undefined
 * otherwise: uploads in progress, strays and packs in the wrong subfolder are not the repository's.
 */
export function resticIdOf(prefix: string, type: ResticFileType, key: string): string | undefined {
  const start = resticListPrefix(prefix, type);
  if (!key.startsWith(start)) return undefined;
  const rest = key.slice(start.length);
  if (type !== 'data') return isResticId(rest) ? rest : undefined;
  const id = rest.slice(3);
  return rest[2] === '/' && isResticId(id) && rest.startsWith(id.slice(0, 2)) ? id : undefined;
}
