/**
 * The storage type catalogue the target form is built from: every type the server's plugins
 * register, as GET /api/storage-targets/types describes it (plugins' own types, then rclone's
 * backends). Pure (no DOM): tested with node --test.
 */

/** One field of a type, as the catalogue route describes it (`label` is the field's help text). */
export interface CatalogueOption {
  key: string;
  label: string;
  required: boolean;
  isPassword: boolean;
  default?: string;
  advanced: boolean;
  examples?: string[];
  /** The JSON Schema type the plugin declares (`string`, `integer`, `boolean`, `object`…); rclone's backends declare none. */
  valueType?: string;
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

/** A type as GET /api/storage-targets/types answers it (the fields the form needs). */
export interface ServedType {
  type: string;
  displayName: string;
  description: string;
  family?: string;
  capabilities: { oauth: boolean };
  options: CatalogueOption[];
}

/** The picker's list: plugin types first (local disk, the quickest start), then rclone's backends by name. */
export function buildCatalogue(served: readonly ServedType[]): CatalogueType[] {
  const types = served.map((t): CatalogueType => {
    const family = t.family === 'rclone' ? 'rclone' : 'plugin';
    return {
      name: t.type,
      displayName: family === 'rclone' ? displayNameOf({ name: t.type, description: t.description }) : t.displayName,
      description: t.description,
      family,
      oauth: t.capabilities.oauth,
      options: t.options,
    };
  });
  const rank = (t: CatalogueType) => (t.name === LOCAL_DISK ? 0 : t.family === 'plugin' ? 1 : 2);
  return types.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
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
