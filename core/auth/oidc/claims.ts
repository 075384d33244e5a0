import type { OidcProviderConfig, OidcRole } from '../../config/oidc-providers.ts';

/**
 * Authentication methods (RFC 8176 `amr` values) that prove a factor beyond a password: a
 * provider that reports one of them (or `mfa` itself) has asked for a second factor, so the
 * account's own is not asked for again. `pwd`, `pin`, `kba` and the like are not in the list.
 */
const SECOND_FACTOR_AMR = new Set([
  'mfa',
  'mca',
  'otp',
  'hwk',
  'swk',
  'sc',
  'sms',
  'tel',
  'fpt',
  'face',
  'iris',
  'retina',
  'vbm',
]);

export type Claims = Record<string, unknown>;

export function secondFactorAsserted(claims: Claims): boolean {
  const amr = claims.amr;
  return Array.isArray(amr) && amr.some((m) => typeof m === 'string' && SECOND_FACTOR_AMR.has(m));
}

/** A claim by a dot path (`realm_access.roles`): a claim named with the dots wins over the nested one. */
function readClaim(claims: Claims, path: string): unknown {
  if (path in claims) return claims[path];
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

const RANK: Record<OidcRole, number> = { viewer: 1, operator: 2, admin: 3 };

/**
 * The role the claims give on this installation: `undefined` when the provider maps no roles
 * (roles are managed here), `null` when it does and none of the values maps (the login is
 * refused), else the highest role any value maps to.
 */
export function roleFromClaims(claims: Claims, provider: OidcProviderConfig): OidcRole | null | undefined {
  if (!provider.roleClaim) return undefined;
  const raw = readClaim(claims, provider.roleClaim);
  const values = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  let best: OidcRole | null = null;
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const role = Object.hasOwn(provider.roleMap, value) ? provider.roleMap[value] : undefined;
    if (role && (best === null || RANK[role] > RANK[best])) best = role;
  }
  return best;
}

/** The address the provider sent, and whether it says it verified it (only a literal `true` counts). */
export function emailOf(claims: Claims): { email: string; verified: boolean } {
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  return { email, verified: email !== '' && claims.email_verified === true };
}
