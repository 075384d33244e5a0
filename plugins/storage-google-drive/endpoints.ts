import { ProviderError } from '@backplane/plugin-api';

/**
 * Where Google lives. Production uses Google's own hosts; proxies, air-gapped mirrors and tests
 * point the three URLs elsewhere (BACKPLANE_GOOGLE_AUTH_URL / _TOKEN_URL / _API_URL).
 */
export interface GoogleEndpoints {
  /** The OAuth consent page the browser opens. */
  authUrl: string;
  /** The OAuth token endpoint (code exchange and refresh). */
  tokenUrl: string;
  /** The root of the Drive REST API; `drive/v3/...` and `upload/drive/v3/...` live below it. Always ends with `/`. */
  apiUrl: string;
}

export const GOOGLE_DEFAULTS: Readonly<GoogleEndpoints> = Object.freeze({
  authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  apiUrl: 'https://www.googleapis.com/',
});

export const ENDPOINT_ENV = Object.freeze({
  authUrl: 'BACKPLANE_GOOGLE_AUTH_URL',
  tokenUrl: 'BACKPLANE_GOOGLE_TOKEN_URL',
  apiUrl: 'BACKPLANE_GOOGLE_API_URL',
} as const);

type Env = Record<string, string | undefined>;

function pick(fixed: string | undefined, env: Env, name: string, fallback: string): string {
  const value = fixed ?? env[name];
  return value === undefined || value.trim() === '' ? fallback : value.trim();
}

function checkUrl(what: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProviderError('permanent', `google drive: ${what} is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ProviderError('permanent', `google drive: ${what} must be http(s): ${JSON.stringify(value)}`);
  return url.href;
}

/**
 * The endpoints in force: explicit values (the factory's, for tests and embedding) win over the
 * environment, which wins over Google's defaults. Read per call, so a changed environment needs
 * no restart of the type.
 */
export function resolveEndpoints(fixed: Partial<GoogleEndpoints>, env: Env): GoogleEndpoints {
  const api = checkUrl(ENDPOINT_ENV.apiUrl, pick(fixed.apiUrl, env, ENDPOINT_ENV.apiUrl, GOOGLE_DEFAULTS.apiUrl));
  return {
    authUrl: checkUrl(ENDPOINT_ENV.authUrl, pick(fixed.authUrl, env, ENDPOINT_ENV.authUrl, GOOGLE_DEFAULTS.authUrl)),
    tokenUrl: checkUrl(
      ENDPOINT_ENV.tokenUrl,
      pick(fixed.tokenUrl, env, ENDPOINT_ENV.tokenUrl, GOOGLE_DEFAULTS.tokenUrl),
    ),
    apiUrl: api.endsWith('/') ? api : `${api}/`,
  };
}
