/**
 * Other names for a storage type's config fields: the keys another product's clients send (for
 * example BackupX's console), or an older version's. A type declares them as `configAliases`;
 * core translates an incoming config to the native names before validating it, reports errors
 * under the name the client used, and shows both names in details (masked alike).
 */

/** The value a form writes for an option it leaves at the backend's default. */
export const UNSET_OPTION: unique symbol = Symbol('unset option');

/** What core shows for a stored secret, and takes back as "keep the stored value". */
export const SECRET_MASK = '********';

/** One problem with a config, `path` as `config/<field>`. */
export interface ConfigIssue {
  path: string;
  message: string;
}

export interface ConfigAlias {
  /** The client's name. */
  alias: string;
  /** The type's own field. */
  native: string;
  /** The client's value as the native value; `UNSET_OPTION` removes the native field. */
  toNative?: (value: unknown) => unknown;
  /** The native value as the client reads it. */
  toAlias?: (value: unknown) => unknown;
  /** What the client reads when the native field is not set. */
  absent?: unknown;
}

export interface ConfigAliases {
  fields: ConfigAlias[];
  /**
   * Runs after the fields were translated, with `aliased` telling whether the client used any
   * alias: adds what that client's form implies (defaults, required fields as `issues`) or
   * reshapes the rest. Returns whether the config was in the client's form after all.
   */
  complete?: (
    config: Record<string, unknown>,
    context: { aliased: boolean; stored?: Record<string, unknown>; issues: ConfigIssue[] },
  ) => boolean;
}

/** Whether two values set an option alike, as a backend's environment carries them (`true` = "true", 21 = "21", empty = unset). */
export function sameSetting(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): string | undefined =>
    v === undefined || v === null || v === '' || v === UNSET_OPTION ? undefined : typeof v === 'string' ? v : String(v);
  return norm(a) === norm(b);
}
