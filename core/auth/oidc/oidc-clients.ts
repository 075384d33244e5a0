import * as client from 'openid-client';
import type { Config } from '../../config/config.ts';
import { isLoopbackHost, type OidcProviderConfig } from '../../config/oidc-providers.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../http/app-error.ts';

/** A provider's discovery document is fetched again after this long (keys rotate through its JWKS, read on demand). */
const DISCOVERY_TTL_MS = 60 * 60_000;
/** One request to a provider (discovery, token, userinfo, keys). */
const REQUEST_TIMEOUT_SECONDS = 10;

interface Discovered {
  at: number;
  server: client.ServerMetadata;
  /** openid-client's cache of the provider's signing keys, carried from one login's Configuration to the next. */
  jwks?: client.ExportedJWKSCache;
}

/**
 * The configured OpenID Connect providers and their openid-client configurations. Discovery is
 * cached per master; everything a sign-in in progress needs lives in the database, so any master
 * of a cluster can finish it.
 */
export class OidcClients {
  readonly #providers: Map<string, OidcProviderConfig>;
  readonly #clock: Clock;
  readonly #discovered = new Map<string, Discovered>();

  constructor({ config, clock }: { config: Config; clock: Clock }) {
    this.#providers = new Map(config.oidcProviders.map((p) => [p.name, p]));
    this.#clock = clock;
  }

  list(): OidcProviderConfig[] {
    return [...this.#providers.values()];
  }

  /** The provider of this name; 404 AUTH_OIDC_UNKNOWN_PROVIDER otherwise. */
  get(name: string): OidcProviderConfig {
    const provider = this.#providers.get(name);
    if (!provider) throw new AppError('AUTH_OIDC_UNKNOWN_PROVIDER');
    return provider;
  }

  /**
   * A configuration for one sign-in: the provider's discovered metadata, the client's credentials,
   * ID tokens checked against the provider's keys even from its token endpoint (openid-client
   * trusts TLS there unless told otherwise), and the time of this master's clock. 502
   * AUTH_OIDC_PROVIDER_UNAVAILABLE when the discovery document cannot be had.
   */
  async configuration(provider: OidcProviderConfig): Promise<client.Configuration> {
    const discovered = await this.#discover(provider);
    const skewSeconds = Math.round((this.#clock.now().getTime() - Date.now()) / 1000);
    const config = new client.Configuration(
      discovered.server,
      provider.clientId,
      { ...(provider.clientSecret ? { client_secret: provider.clientSecret } : {}), [client.clockSkew]: skewSeconds },
      clientAuth(provider, discovered.server),
    );
    prepare(config, provider);
    if (discovered.jwks) client.setJwksCache(config, discovered.jwks);
    return config;
  }

  /** Keeps the signing keys a sign-in fetched, so the next one need not fetch them again. */
  keepKeys(provider: OidcProviderConfig, config: client.Configuration): void {
    const discovered = this.#discovered.get(provider.name);
    const jwks = client.getJwksCache(config);
    if (discovered && jwks) discovered.jwks = jwks;
  }

  async #discover(provider: OidcProviderConfig): Promise<Discovered> {
    const cached = this.#discovered.get(provider.name);
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached;
    try {
      const found = await client.discovery(new URL(provider.issuer), provider.clientId, undefined, undefined, {
        // openid-client looks for this very function here to let the discovery request itself use http.
        execute: plainHttp(provider) ? [client.allowInsecureRequests] : [],
        timeout: REQUEST_TIMEOUT_SECONDS,
      });
      const discovered: Discovered = { at: Date.now(), server: { ...found.serverMetadata() } };
      this.#discovered.set(provider.name, discovered);
      return discovered;
    } catch (err) {
      throw new AppError('AUTH_OIDC_PROVIDER_UNAVAILABLE', {
        message: `Discovery of ${provider.issuer} failed: ${reasonOf(err)}`,
      });
    }
  }
}

function prepare(config: client.Configuration, provider: OidcProviderConfig): void {
  config.timeout = REQUEST_TIMEOUT_SECONDS;
  if (plainHttp(provider)) client.allowInsecureRequests(config);
  client.enableNonRepudiationChecks(config);
}

/** The config check allows plain http for an issuer on this machine only (oidc-providers.ts). */
function plainHttp(provider: OidcProviderConfig): boolean {
  const url = new URL(provider.issuer);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/** client_secret_basic (the default of the specification) unless the provider lists only client_secret_post. */
function clientAuth(provider: OidcProviderConfig, server: client.ServerMetadata): client.ClientAuth {
  if (!provider.clientSecret) return client.None();
  const methods = server.token_endpoint_auth_methods_supported;
  return methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
    ? client.ClientSecretPost(provider.clientSecret)
    : client.ClientSecretBasic(provider.clientSecret);
}

/** What went wrong, for the audit log and the operator: openid-client's message and code, nothing secret. */
export function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${err.message}${cause}`.slice(0, 300);
}

/** A provider that could not be reached at all (refused, timed out), as opposed to one that answered wrongly. */
export function isUnreachable(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return true;
    if (e.name === 'TypeError' && e.message === 'fetch failed') return true;
  }
  return false;
}
