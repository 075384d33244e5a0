import type { TestContext } from 'node:test';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider in the test process (the certified `oidc-provider` package) on
 * 127.0.0.1, behind a small proxy on its issuer address that forwards every request unchanged
 * unless a test asks it to rewrite the token endpoint's answer (a provider that misbehaves:
 * an ID token of another client, with a broken signature, replayed from an earlier sign-in).
 * The code under test talks HTTP to it as to any provider; nothing of it is stubbed.
 */

export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  groups?: string[];
}

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface TestProvider {
  /** The issuer: the proxy's address. */
  issuer: string;
  accounts: Map<string, TestAccount>;
  /** Who the next interaction signs in, and the authentication methods it reports (`amr`). */
  signIn: { accountId: string; amr: string[] };
  /** Rewrites the token endpoint's JSON answer on its way to the client; null passes it unchanged. */
  tamperToken: ((body: Record<string, unknown>) => Record<string, unknown>) | null;
  /** Every ID token the token endpoint issued, in order (as it sent them, before any rewriting). */
  idTokens: string[];
  /** Seconds an ID token lives (oidc-provider's default: an hour). */
  idTokenTtl: number;
  /**
   * Starts the provider itself with its clients (`startProvider` does when given them): the
   * issuer is known before, so a master can be configured with it before its own address, which a
   * client's redirect URI names, is known.
   */
  serve(clients: TestClient[]): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Starts the proxy and, given its clients, the provider; both close when the test ends. */
export async function startProvider(t: TestContext, clients?: TestClient[]): Promise<TestProvider> {
  const proxy = createServer();
  const proxyPort = await listen(proxy);
  const issuer = `http://127.0.0.1:${proxyPort}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

  let providerPort = 0;
  let providerServer: Server | undefined;
  const state: TestProvider = {
    issuer,
    accounts: new Map(),
    signIn: { accountId: '', amr: ['pwd'] },
    tamperToken: null,
    idTokens: [],
    idTokenTtl: 3600,
    async serve(list) {
      providerServer = serveProvider(list);
      providerPort = await listen(providerServer);
    },
  };

  const serveProvider = (list: TestClient[]): Server => {
    const provider = new Provider(issuer, {
      clients: list.map((c) => ({
        ...c,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      jwks: { keys: [jwk as never] },
      cookies: { keys: ['test-cookie-key-0123456789'] },
      claims: {
        // With `openid`: how the user signed in (`amr`, RFC 8176), as Authentik or Entra ID send it.
        openid: ['sub', 'acr', 'amr', 'auth_time'],
        email: ['email', 'email_verified'],
        profile: ['name', 'preferred_username'],
        groups: ['groups'],
      },
      scopes: ['openid', 'email', 'profile', 'groups'],
      features: { devInteractions: { enabled: false } },
      // Every client must send PKCE: a sign-in without it fails here instead of passing unnoticed.
      pkce: { required: () => true },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      ttl: {
        IdToken: () => state.idTokenTtl,
        AccessToken: 600,
        Grant: 600,
        Interaction: 600,
        Session: 600,
      },
      async findAccount(_ctx, id) {
        const account = state.accounts.get(id);
        if (!account) return undefined;
        return { accountId: id, claims: async () => ({ sub: id, ...account }) };
      },
    });

    // The sign-in page and the consent, answered at once for `state.signIn`: a user who typed the
    // right password (and, when `amr` says so, a second factor) and agreed to share the claims.
    return createServer((req: IncomingMessage, res: ServerResponse) => {
      if (!req.url?.startsWith('/interaction/')) {
        // The provider's own Koa handler answers the request and its errors; nothing waits for it.
        void provider.callback()(req, res);
        return;
      }
      void (async () => {
        try {
          const details = await provider.interactionDetails(req, res);
          const { accountId, amr } = state.signIn;
          const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
          grant.addOIDCScope(String(details.params.scope));
          const grantId = await grant.save();
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId, amr }, consent: { grantId } },
            { mergeWithLastSubmission: false },
          );
        } catch (err) {
          res.statusCode = 500;
          res.end(String(err));
        }
      })();
    });
  };

  proxy.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!providerPort) {
      res.statusCode = 503;
      res.end();
      return;
    }
    const upstream = httpRequest(
      { host: '127.0.0.1', port: providerPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const isToken = req.url?.split('?')[0] === '/token' && answer.statusCode === 200;
        if (!isToken) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          let body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          if (typeof body.id_token === 'string') state.idTokens.push(body.id_token);
          if (state.tamperToken) body = state.tamperToken(body);
          const out = Buffer.from(JSON.stringify(body));
          res.writeHead(answer.statusCode ?? 200, {
            ...answer.headers,
            'content-length': String(out.length),
          });
          res.end(out);
        });
      },
    );
    upstream.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(upstream);
  });

  t.after(async () => {
    for (const server of [proxy, providerServer]) {
      if (!server) continue;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  if (clients) await state.serve(clients);
  return state;
}

/**
 * A browser's part of a sign-in, with plain HTTP: follows the provider's redirects (keeping its
 * cookies, as a browser would) from the authorization URL until one leads to `stopAt`, and
 * returns that URL (the callback with the code and state).
 */
export async function browse(authorizationUrl: string, stopAt: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location)
      throw new Error(`the provider answered ${res.status} at ${url.href}: ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
    url = new URL(location, url);
    if (url.href.startsWith(stopAt)) return url;
  }
  throw new Error('too many redirects');
}
