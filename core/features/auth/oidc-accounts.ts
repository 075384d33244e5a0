import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { UserEntity, type User } from '../../db/entities/user.ts';
import { UserIdentityEntity, type UserIdentity } from '../../db/entities/single-sign-on.ts';
import type { OidcProviderConfig, OidcRole } from '../../config/oidc-providers.ts';
import { emailOf, type Claims } from '../../auth/oidc/claims.ts';
import { AppError } from '../../http/app-error.ts';
import type { UserService } from '../users/user-service.ts';

export type AccountMatch = 'subject' | 'email' | 'provisioned';

/**
 * The account a provider's subject signs in to, in this order: the account linked to this issuer
 * and subject; else, when the provider allows it, the one account whose address equals the
 * provider's verified `email` (and which no other subject of this issuer holds), now linked;
 * else, when the provider allows it, a new account. Otherwise 403 AUTH_OIDC_NO_ACCOUNT.
 */
export async function accountFor(
  em: EntityManager,
  users: UserService,
  provider: OidcProviderConfig,
  claims: Claims,
  role: OidcRole | undefined,
): Promise<{ user: User; identity: UserIdentity; match: AccountMatch }> {
  const subject = String(claims.sub);
  const { email, verified } = emailOf(claims);
  const linked = await em.findOne(UserIdentityEntity, { issuer: provider.issuer, subject });
  if (linked) {
    const user = await em.findOne(UserEntity, { id: linked.userId });
    if (user) return { user, identity: linked, match: 'subject' };
    // The account was deleted without its link (a row from before links were removed with it): free the subject.
    await em.nativeDelete(UserIdentityEntity, { id: linked.id });
  }
  const link = (user: User) =>
    em.create(UserIdentityEntity, {
      userId: user.id,
      provider: provider.name,
      issuer: provider.issuer,
      subject,
      email: email.slice(0, 255),
      lastLoginAt: null,
    });
  if (provider.allowEmailLinking && verified) {
    const user = await accountWithAddress(em, provider, email);
    if (user) return { user, identity: link(user), match: 'email' };
  }
  if (!provider.autoProvision) throw new AppError('AUTH_OIDC_NO_ACCOUNT');
  const user = await users.create({
    username: await freeUsername(em, provider, claims, email),
    // Nobody knows it: the account signs in through its provider (an admin may set a password later).
    password: randomBytes(32).toString('base64url'),
    displayName: displayNameOf(claims, email),
    email: verified ? email.slice(0, 255) : '',
    role: role ?? 'viewer',
  });
  return { user, identity: link(user), match: 'provisioned' };
}

/**
 * The one account with this address (compared without case), unless several share it (which
 * one would be a guess) or it is already linked to another subject of the same issuer.
 */
async function accountWithAddress(
  em: EntityManager,
  provider: OidcProviderConfig,
  email: string,
): Promise<User | null> {
  const wanted = email.toLowerCase();
  // Accounts are few (people who run backups): reading their addresses beats a dialect-specific lower().
  const candidates = (await em.find(UserEntity, { email: { $ne: '' } })).filter(
    (u) => u.email.toLowerCase() === wanted,
  );
  if (candidates.length !== 1) return null;
  const user = candidates[0]!;
  const taken = await em.count(UserIdentityEntity, { userId: user.id, issuer: provider.issuer });
  return taken === 0 ? user : null;
}

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;

/** A username for a new account: the provider's `preferred_username`, the address's local part or the provider and subject, made unique. */
async function freeUsername(
  em: EntityManager,
  provider: OidcProviderConfig,
  claims: Claims,
  email: string,
): Promise<string> {
  const wishes = [
    typeof claims.preferred_username === 'string' ? claims.preferred_username : '',
    email.split('@')[0] ?? '',
    `${provider.name}-${String(claims.sub)}`,
  ];
  const base =
    wishes
      .map((w) => w.replace(/[^A-Za-z0-9._@-]+/g, '-').replace(/^[^A-Za-z0-9]+/, ''))
      .find((w) => w.length >= 3 && USERNAME.test(w))
      ?.slice(0, 56) ?? `${provider.name}-user`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if ((await em.count(UserEntity, { username: name })) === 0) return name;
  }
}

function displayNameOf(claims: Claims, email: string): string {
  const name = [claims.name, claims.preferred_username, email].find((v) => typeof v === 'string' && v.trim() !== '');
  return (typeof name === 'string' ? name.trim() : String(claims.sub)).slice(0, 128);
}
