import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Single sign-on with OpenID Connect (docs/account-security.md). Every row lives in the database,
 * not in a master's memory, so a login started on one master of a cluster finishes on another.
 */

/** An account's link to a subject of a provider: the same `sub` of the same issuer is the same person. */
export const UserIdentityEntity = defineEntity({
  name: 'UserIdentity',
  tableName: 'user_identities',
  indexes: [{ name: 'user_identities_user_index', properties: ['userId'] }],
  uniques: [{ name: 'user_identities_issuer_subject_unique', properties: ['issuer', 'subject'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer(),
    /** The configured provider's name when the link was made (the issuer is what matches). */
    provider: p.string().length(64),
    issuer: p.string().length(512),
    subject: p.string().length(255),
    /** The address the provider last sent, for the admin's information. */
    email: p.string().length(255).default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastLoginAt: p.datetime().nullable(),
  },
});
export type UserIdentity = InferEntity<typeof UserIdentityEntity>;

/**
 * A sign-in sent to a provider and not yet back: single use, ten minutes. Keyed by the hash of
 * its `state`; the nonce, the PKCE verifier and the redirect URI are sealed.
 */
export const OidcLoginEntity = defineEntity({
  name: 'OidcLogin',
  tableName: 'oidc_logins',
  properties: {
    id: p.integer().primary().autoincrement(),
    stateHash: p.string().length(64).unique(),
    provider: p.string().length(64),
    payload: p.text(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type OidcLogin = InferEntity<typeof OidcLoginEntity>;

/**
 * The one-time code the callback hands the console (`/login/sso?code=`): only its hash is kept;
 * it opens a session once, within 60 seconds (five minutes once it waits for a second factor).
 */
export const OidcLoginCodeEntity = defineEntity({
  name: 'OidcLoginCode',
  tableName: 'oidc_login_codes',
  properties: {
    id: p.integer().primary().autoincrement(),
    codeHash: p.string().length(64).unique(),
    userId: p.integer(),
    provider: p.string().length(64),
    /** The provider asserted a second factor (`amr`): the account's own is not asked for. */
    mfaAsserted: p.boolean().default(false),
    /** Wrong second factors tried with this code; at the limit it is dropped. */
    failures: p.integer().default(0),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type OidcLoginCode = InferEntity<typeof OidcLoginCodeEntity>;
