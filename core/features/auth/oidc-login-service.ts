import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import * as client from 'openid-client';
import { UserEntity, type User } from '../../db/entities/user.ts';
import { OidcLoginEntity, OidcLoginCodeEntity } from '../../db/entities/single-sign-on.ts';
import type { OidcProviderConfig } from '../../config/oidc-providers.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { hashToken, safeEqual } from '../../security/tokens.ts';
import { AppError } from '../../http/app-error.ts';
import { type OidcClients, isUnreachable, reasonOf } from '../../auth/oidc/oidc-clients.ts';
import { roleFromClaims, secondFactorAsserted, type Claims } from '../../auth/oidc/claims.ts';
import { OTP_MAX_FAILURES, OTP_TTL_MS } from '../../auth/mfa/login-otp.ts';
import type { UserService } from '../users/user-service.ts';
import type { AuthService, ClientInfo, Session, SsoLoginInput } from './auth-service.ts';
import { accountFor, type AccountMatch } from './oidc-accounts.ts';

/** A sign-in sent to a provider must come back within this long. */
const LOGIN_TTL_MS = 10 * 60_000;
/** The one-time code the callback hands the console lives this long... */
export const SSO_CODE_TTL_MS = 60_000;
/** ... or, once it waits for the account's second factor, as long as an email code does. */
const SSO_CODE_FACTOR_TTL_MS = OTP_TTL_MS;
const PAYLOAD_AAD = 'oidc_logins.payload';

/** What the provider's round trip needs back, sealed in the `oidc_logins` row. */
interface Pending {
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
}

export interface SsoExchangeInput extends SsoLoginInput {
  code: string;
}

/**
 * Sign-in through an OpenID Connect provider: authorization code flow with PKCE, state and nonce
 * (openid-client does the protocol and every check of the ID token), then the account the
 * subject matches, its role from the claims, and a one-time code for the console, which
 * `exchange` turns into the login's answer. Every step is a database row, so the masters of a
 * cluster can each take any step.
 */
export class OidcLoginService {
  readonly #em: EntityManager;
  readonly #clients: OidcClients;
  readonly #box: SecretBox;
  readonly #clock: Clock;
  readonly #auth: AuthService;
  readonly #users: UserService;

  constructor({
    em,
    oidcClients,
    secretBox,
    clock,
    auth,
    users,
  }: {
    em: EntityManager;
    oidcClients: OidcClients;
    secretBox: SecretBox;
    clock: Clock;
    auth: AuthService;
    users: UserService;
  }) {
    this.#em = em;
    this.#clients = oidcClients;
    this.#box = secretBox;
    this.#clock = clock;
    this.#auth = auth;
    this.#users = users;
  }

  providers(): { name: string; displayName: string }[] {
    return this.#clients.list().map((p) => ({ name: p.name, displayName: p.displayName }));
  }

  /** The provider of this name (404 AUTH_OIDC_UNKNOWN_PROVIDER). */
  provider(name: string): OidcProviderConfig {
    return this.#clients.get(name);
  }

  /**
   * Starts a sign-in: the authorization URL to send the browser to, and the `state` the browser
   * must bring back in its cookie as well as in the callback's query.
   */
  async start(provider: OidcProviderConfig, redirectUri: string): Promise<{ location: string; state: string }> {
    const config = await this.#clients.configuration(provider);
    const now = this.#clock.now();
    await this.#purge(now);
    const state = client.randomState();
    const pending: Pending = {
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
      redirectUri,
    };
    this.#em.create(OidcLoginEntity, {
      stateHash: hashToken(state),
      provider: provider.name,
      payload: this.#box.seal(JSON.stringify(pending), PAYLOAD_AAD),
      expiresAt: new Date(now.getTime() + LOGIN_TTL_MS),
      usedAt: null,
      createdAt: now,
    });
    await this.#em.flush();
    const location = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: provider.scopes.join(' '),
      state,
      nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { location: location.href, state };
  }

  /**
   * The provider's redirect back: the state (from the query, equal to the browser's cookie, and
   * an unused row of this provider, claimed here), the code exchanged with the PKCE verifier, the
   * ID token checked against the provider's keys (signature, issuer, audience, expiry, nonce),
   * then the account and its role. Returns the one-time code for the console.
   */
  async finish(
    provider: OidcProviderConfig,
    query: string,
    browserState: string | undefined,
  ): Promise<{ code: string; user: User; match: AccountMatch; mfaAsserted: boolean; roleFrom?: string }> {
    const params = new URLSearchParams(query);
    const state = params.get('state') ?? '';
    // The cookie binds the sign-in to the browser that started it: a callback URL planted in another
    // browser (login CSRF) does not sign that browser in to the planter's account.
    if (!state || !browserState || !safeEqual(state, browserState)) throw new AppError('AUTH_OIDC_STATE_INVALID');
    const now = this.#clock.now();
    const claimed = await this.#em.nativeUpdate(
      OidcLoginEntity,
      { stateHash: hashToken(state), provider: provider.name, usedAt: null, expiresAt: { $gt: now } },
      { usedAt: now },
    );
    if (claimed !== 1) throw new AppError('AUTH_OIDC_STATE_INVALID');
    const row = await this.#em.findOneOrFail(OidcLoginEntity, { stateHash: hashToken(state) });
    const pending = JSON.parse(this.#box.open(row.payload, PAYLOAD_AAD)) as Pending;
    const error = params.get('error');
    if (error)
      throw new AppError('AUTH_OIDC_DENIED', {
        message: `The provider answered ${error.slice(0, 64)}: ${(params.get('error_description') ?? '').slice(0, 200)}`,
      });

    const config = await this.#clients.configuration(provider);
    const callbackUrl = new URL(pending.redirectUri);
    callbackUrl.search = params.toString();
    let claims: Claims;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims()!;
      // Providers put the profile claims (email, groups) in the ID token or only at the userinfo
      // endpoint; read both, the ID token's winning. The userinfo answer must name the same subject.
      const userinfo =
        config.serverMetadata().userinfo_endpoint && tokens.access_token
          ? await client.fetchUserInfo(config, tokens.access_token, idToken.sub)
          : {};
      claims = { ...userinfo, ...idToken };
    } catch (err) {
      if (isUnreachable(err)) throw new AppError('AUTH_OIDC_PROVIDER_UNAVAILABLE', { message: reasonOf(err) });
      throw new AppError('AUTH_OIDC_TOKEN_INVALID', { message: reasonOf(err) });
    }
    this.#clients.keepKeys(provider, config);

    const role = roleFromClaims(claims, provider);
    if (role === null) throw new AppError('AUTH_OIDC_NO_ROLE');
    const { user, identity, match } = await accountFor(this.#em, this.#users, provider, claims, role);
    if (user.disabled) throw new AppError('AUTH_USER_DISABLED');
    identity.lastLoginAt = now;
    if (typeof claims.email === 'string') identity.email = claims.email.slice(0, 255);
    await this.#em.flush();
    // Checked at every sign-in: the provider's groups are the authority once it maps roles. A
    // change revokes the account's other sessions, like an admin's change of role; the last
    // enabled admin cannot lose the role this way either (400 USER_LAST_ADMIN).
    const roleFrom = role !== undefined && role !== user.role ? user.role : undefined;
    if (roleFrom !== undefined) await this.#users.update(user.id, { role }, { userId: null });

    const code = randomBytes(32).toString('base64url');
    const mfaAsserted = secondFactorAsserted(claims);
    this.#em.create(OidcLoginCodeEntity, {
      codeHash: hashToken(code),
      userId: user.id,
      provider: provider.name,
      mfaAsserted,
      failures: 0,
      expiresAt: new Date(now.getTime() + SSO_CODE_TTL_MS),
      usedAt: null,
      createdAt: now,
    });
    await this.#em.flush();
    return { code, user, match, mfaAsserted, ...(roleFrom !== undefined ? { roleFrom } : {}) };
  }

  /**
   * The console's half: the one-time code for the login's answer. The account's second factor
   * is checked as at a password login unless the provider asserted one; a code waiting for it
   * lives five minutes and dies after five wrong factors.
   */
  async exchange(input: SsoExchangeInput, clientInfo: ClientInfo): Promise<{ session: Session; provider: string }> {
    const now = this.#clock.now();
    const row = await this.#em.findOne(OidcLoginCodeEntity, {
      codeHash: hashToken(input.code),
      usedAt: null,
      expiresAt: { $gt: now },
    });
    const user = row ? await this.#em.findOne(UserEntity, { id: row.userId }) : null;
    if (!row || !user) throw new AppError('AUTH_OIDC_CODE_INVALID');
    const consume = async () => {
      const used = await this.#em.nativeUpdate(OidcLoginCodeEntity, { id: row.id, usedAt: null }, { usedAt: now });
      if (used !== 1) throw new AppError('AUTH_OIDC_CODE_INVALID');
    };
    try {
      const session = await this.#auth.ssoLogin(user, { mfaAsserted: row.mfaAsserted }, input, clientInfo, consume);
      return { session, provider: row.provider };
    } catch (err) {
      if (err instanceof AppError && err.code === 'AUTH_2FA_REQUIRED') {
        const longer = new Date(row.createdAt.getTime() + SSO_CODE_FACTOR_TTL_MS);
        if (longer > row.expiresAt)
          await this.#em.nativeUpdate(OidcLoginCodeEntity, { id: row.id, usedAt: null }, { expiresAt: longer });
      } else if (err instanceof AppError && err.code === 'AUTH_2FA_INVALID') {
        const failures = row.failures + 1;
        await this.#em.nativeUpdate(
          OidcLoginCodeEntity,
          { id: row.id, usedAt: null },
          failures >= OTP_MAX_FAILURES ? { failures, usedAt: now } : { failures },
        );
      }
      throw err;
    }
  }

  /** Sign-ins never finished and codes past their time or used: nothing can use them any more. */
  async #purge(now: Date): Promise<void> {
    await this.#em.nativeDelete(OidcLoginEntity, { $or: [{ expiresAt: { $lt: now } }, { usedAt: { $ne: null } }] });
    await this.#em.nativeDelete(OidcLoginCodeEntity, {
      $or: [{ expiresAt: { $lt: now } }, { usedAt: { $ne: null } }],
    });
  }
}
