import {
  UNSET_OPTION,
  sameSetting,
  type ConfigAlias,
  type ConfigAliases,
  type ProviderManifest,
} from '@backplane/plugin-api';

/** A provider type of any kind that may declare other names for its config fields (storage and notifier types do). */
type AliasedType = ProviderManifest & { configAliases?: ConfigAliases };
import { SECRET_MASK, type ConfigIssue } from './provider-config.ts';

/**
 * Other names for config fields, as a storage type declares them (`configAliases`, e.g. the
 * rclone types' client keys): an incoming config is translated to the type's own names before
 * it is validated, so one form is stored and handed to providers and agents; errors name the
 * field the client used; details carry the alias names next to the native ones.
 */

const aliasesOf = (type: AliasedType): ConfigAlias[] => type.configAliases?.fields ?? [];

const same = sameSetting;

function put(config: Record<string, unknown>, key: string, value: unknown): void {
  if (value === UNSET_OPTION) delete config[key];
  else config[key] = value;
}

export interface TranslatedConfig {
  /** The config under Backplane's keys. */
  config: Record<string, unknown>;
  /** Whether any alias was given (errors then name the client's fields). */
  aliased: boolean;
  /** Settings sent under both names with different values, and what the client's form requires. */
  issues: ConfigIssue[];
}

/**
 * Translates the aliases of `incoming` to the type's own names. When both names of one setting
 * are sent with different values, the one that differs from the stored value is the edit (a
 * client sends back the whole config it read, both names included); on create, or when both
 * changed, it is an issue naming both fields. A masked or empty secret means "keep the stored one".
 */
export function fromAliases(
  type: AliasedType,
  incoming: Record<string, unknown>,
  stored?: Record<string, unknown>,
): TranslatedConfig {
  const config: Record<string, unknown> = { ...incoming };
  const issues: ConfigIssue[] = [];
  let aliased = false;
  const keeps = (field: string, v: unknown) => type.secretFields.includes(field) && (v === '' || v === SECRET_MASK);
  for (const alias of aliasesOf(type)) {
    if (!(alias.alias in config) || alias.alias === alias.native) continue;
    const raw = config[alias.alias];
    delete config[alias.alias];
    if (raw === undefined || raw === null || keeps(alias.native, raw)) continue;
    // Both sides compared as the client's value would be stored (`http://x/` is `http://x`, `false` is unset).
    const canon = (v: unknown) => (alias.toNative && v !== undefined && v !== null ? alias.toNative(v) : v);
    const mapped = canon(raw);
    const native = config[alias.native];
    const before = stored?.[alias.native];
    if (native === undefined || keeps(alias.native, native)) {
      if (mapped === UNSET_OPTION) continue;
      put(config, alias.native, mapped);
    } else if (same(canon(native), mapped)) {
      continue; // the same setting under both names: an echo of the detail, not the client's form
    } else if (stored && same(canon(native), canon(before))) {
      put(config, alias.native, mapped);
    } else if (stored && same(mapped, canon(before))) {
      continue; // the native name is the edit
    } else {
      issues.push({
        path: `config/${alias.alias}`,
        message: `and config/${alias.native} set the same option to different values; send one of them`,
      });
      continue;
    }
    aliased = true;
  }
  const complete = type.configAliases?.complete;
  if (complete) aliased = complete(config, { aliased, stored, issues });
  return { config, aliased, issues };
}

/** A validation issue under the name the client used: `config/url` -> `config/endpoint` for a webdav config sent with the alias keys. */
export function aliasIssues(type: AliasedType, issues: ConfigIssue[]): ConfigIssue[] {
  const byNative = new Map(aliasesOf(type).map((a) => [`config/${a.native}`, `config/${a.alias}`]));
  return issues.map((i) => ({ ...i, path: byNative.get(i.path) ?? i.path }));
}

/**
 * The detail's config with the alias names added (where a client reads them), masked like
 * their native counterparts; `maskedFields` lists both names of a masked secret.
 */
export function aliasView(
  type: AliasedType | undefined,
  view: { config: Record<string, unknown>; maskedFields: string[] },
): { config: Record<string, unknown>; maskedFields: string[] } {
  if (!type) return view;
  const config = { ...view.config };
  const masked = new Set(view.maskedFields);
  for (const alias of aliasesOf(type)) {
    if (alias.alias in config) continue;
    const value = config[alias.native];
    if (value === undefined || value === null) {
      if (alias.absent !== undefined) config[alias.alias] = alias.absent;
      continue;
    }
    config[alias.alias] = value === SECRET_MASK ? value : alias.toAlias ? alias.toAlias(value) : value;
    if (masked.has(alias.native)) masked.add(alias.alias);
  }
  return { config, maskedFields: [...masked].sort() };
}
