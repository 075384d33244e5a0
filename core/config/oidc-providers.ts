/**
 * The OpenID Connect providers an installation signs in with (`oidc.providers` in the config
 * file, `BACKPLANE_OIDC_PROVIDERS` as a JSON array), checked once at start so a typo stops the
 * master with the field's name instead of failing at someone's first login.
 */

export type OidcRole = 'admin' | 'operator' | 'viewer';

export interface OidcProviderConfig {
  /** In the routes' paths (`/api/auth/oidc/<name>/login`): lower-case letters, digits and dashes. */
  name: string;
  /** On the console's button: "Sign in with <displayName>". */
  displayName: string;
  /** The issuer identifier; its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** Absent: a public client (PKCE alone). */
  clientSecret: string | undefined;
  /** Always holds `openid`. */
  scopes: string[];
  /** A claim (a dot path into nested objects, e.g. `realm_access.roles`) whose values `roleMap` maps to a role. */
  roleClaim: string | undefined;
  roleMap: Record<string, OidcRole>;
  /** Create an account for a subject that matches none. */
  autoProvision: boolean;
  /** Link a subject to the account with the same address when the provider says the address is verified. */
  allowEmailLinking: boolean;
}

const NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const ROLES = new Set<string>(['admin', 'operator', 'viewer']);
const FIELDS = new Set([
  'name',
  'displayName',
  'issuer',
  'clientId',
  'clientSecret',
  'scopes',
  'roleClaim',
  'roleMap',
  'autoProvision',
  'allowEmailLinking',
]);

/**
 * Whether a host is this machine: an issuer there may use plain http (a provider in a test, or one
 * behind a local proxy); anywhere else tokens and secrets would cross a network in the clear.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Parses and checks the list; `fail(message)` builds the error naming where the list came from. */
export function parseOidcProviders(raw: unknown, fail: (why: string) => Error): OidcProviderConfig[] {
  let value = raw;
  if (typeof value === 'string') {
    if (value.trim() === '') return [];
    try {
      value = JSON.parse(value);
    } catch {
      throw fail('must be a JSON array of providers');
    }
  }
  if (!Array.isArray(value)) throw fail('must be a list of providers');
  const seen = new Set<string>();
  return value.map((entry, i) => {
    const where = (field: string) => `[${i}].${field}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      throw fail(`[${i}] must be an object with name, displayName, issuer and clientId`);
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).find((k) => !FIELDS.has(k));
    if (unknown !== undefined) throw fail(`[${i}]: unknown field "${unknown}"`);
    const text = (field: string, required: boolean): string | undefined => {
      const v = e[field];
      if (v === undefined || v === null || v === '') {
        if (required) throw fail(`${where(field)} is required`);
        return undefined;
      }
      if (typeof v !== 'string') throw fail(`${where(field)} must be a string`);
      return v;
    };
    const flag = (field: string): boolean => {
      const v = e[field];
      if (v === undefined || v === null) return false;
      if (typeof v !== 'boolean') throw fail(`${where(field)} must be true or false`);
      return v;
    };
    const name = text('name', true)!;
    if (!NAME.test(name)) throw fail(`${where('name')} must be 1-32 lower-case letters, digits or dashes`);
    if (seen.has(name)) throw fail(`${where('name')}: "${name}" is used twice`);
    seen.add(name);
    const issuer = text('issuer', true)!;
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw fail(`${where('issuer')} must be a URL`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
      throw fail(`${where('issuer')} must use https (plain http only on localhost)`);
    const scopes = e.scopes ?? ['openid', 'email', 'profile'];
    if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && /^[\x21-\x7e]+$/.test(s)))
      throw fail(`${where('scopes')} must be a list of scope names`);
    const roleMap = e.roleMap ?? {};
    if (typeof roleMap !== 'object' || roleMap === null || Array.isArray(roleMap))
      throw fail(`${where('roleMap')} must map claim values to admin, operator or viewer`);
    for (const [k, v] of Object.entries(roleMap))
      if (typeof v !== 'string' || !ROLES.has(v))
        throw fail(`${where('roleMap')}["${k}"] must be admin, operator or viewer`);
    const roleClaim = text('roleClaim', false);
    if (roleClaim === undefined && Object.keys(roleMap).length > 0)
      throw fail(`${where('roleMap')} needs roleClaim, the claim whose values it maps`);
    return {
      name,
      displayName: text('displayName', false) ?? name,
      // Kept as written: the discovery document must name exactly this issuer.
      issuer,
      clientId: text('clientId', true)!,
      clientSecret: text('clientSecret', false),
      scopes: scopes.includes('openid') ? (scopes as string[]) : ['openid', ...(scopes as string[])],
      roleClaim,
      roleMap: roleMap as Record<string, OidcRole>,
      autoProvision: flag('autoProvision'),
      allowEmailLinking: flag('allowEmailLinking'),
    };
  });
}
