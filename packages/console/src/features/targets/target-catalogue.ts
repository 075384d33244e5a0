/**
 * The storage type catalogue the target form is built from. Pure (no DOM): tested with node --test.
 *
 * The API describes rclone's backends (GET /api/storage-targets/rclone/backends) but no route
 * describes the plugin types (local_disk, google_drive) or BackupX's vendor types: their fields are
 * written out here from the plugins' `options` until such a route exists (reported as an API gap).
 */

/** One option as GET /api/storage-targets/rclone/backends describes it (`label` is rclone's help text). */
export interface CatalogueOption {
  key: string;
  label: string;
  required: boolean;
  isPassword: boolean;
  default?: string;
  advanced: boolean;
  examples?: string[];
}

export interface CatalogueType {
  name: string;
  displayName: string;
  description: string;
  /** `plugin` types come first in the picker; `rclone` are the installed rclone's backends. */
  family: 'plugin' | 'rclone';
  /** Authorised through Google's consent page instead of a plain save. */
  oauth: boolean;
  options: CatalogueOption[];
}

export const LOCAL_DISK = 'local_disk';
export const GOOGLE_DRIVE = 'google_drive';
/** rclone's generic type: its `options` field is an object of rclone option names. */
export const GENERIC_RCLONE = 'rclone';

/** The plugin types' fields (plugins/storage-local/local-disk.ts, plugins/storage-google-drive/google-drive-type.ts). */
export const PLUGIN_TYPES: CatalogueType[] = [
  {
    name: LOCAL_DISK,
    displayName: 'Local disk',
    description: 'A folder on a disk of the machine that runs the backup: an internal disk, a USB drive, or a mounted NAS share.',
    family: 'plugin',
    oauth: false,
    options: [{
      key: 'basePath',
      label: 'Absolute path of the folder that holds the backups, on the machine that runs the operation. It must already exist: Backplane creates the folders below it but never the folder itself.',
      required: true, isPassword: false, advanced: false, examples: ['/var/backups/backplane', '/mnt/nas/backups'],
    }],
  },
  {
    name: GOOGLE_DRIVE,
    displayName: 'Google Drive',
    description: 'A folder in Google Drive, authorised once through Google\'s consent page (OAuth); uploads are resumable and streamed.',
    family: 'plugin',
    oauth: true,
    options: [
      {
        key: 'clientId',
        label: 'OAuth client ID from the Google Cloud console (APIs & Services > Credentials, type "Web application", Google Drive API enabled). Add the redirect URI shown below as an authorised redirect URI.',
        required: true, isPassword: false, advanced: false, examples: ['1234567890-abc123def456.apps.googleusercontent.com'],
      },
      { key: 'clientSecret', label: 'The OAuth client\'s secret.', required: true, isPassword: true, advanced: false },
      {
        key: 'folderId',
        label: 'Id of the Drive folder for the backups (the last part of its URL). Leave empty to let Backplane create and use its own folder in My Drive.',
        required: false, isPassword: false, advanced: false, default: '',
      },
    ],
  },
];

/** The picker's list: plugin types first (local disk, the quickest start), then rclone's backends by name. */
export function buildCatalogue(rclone: readonly { name: string; description: string; options: CatalogueOption[] }[]): CatalogueType[] {
  const pluginNames = new Set(PLUGIN_TYPES.map((t) => t.name));
  const backends = rclone
    .filter((b) => !pluginNames.has(b.name))
    .map((b): CatalogueType => ({ name: b.name, displayName: displayNameOf(b), description: b.description, family: 'rclone', oauth: false, options: b.options }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return [...PLUGIN_TYPES, ...backends];
}

/** The route describes a backend as `Amazon S3 … (rclone backend "s3")`: the picker names it without the suffix (the key is shown apart). */
function displayNameOf(b: { name: string; description: string }): string {
  return b.description.replace(/\s*\(rclone backend "[^"]*"\)\s*$/, '').trim() || b.name;
}

/** Types whose name, display name or description contains every word of the query. */
export function searchTypes(types: readonly CatalogueType[], query: string): CatalogueType[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...types];
  return types.filter((t) => {
    const text = `${t.name} ${t.displayName} ${t.description}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}
