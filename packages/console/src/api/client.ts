import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { authHeaders, writeSession } from './session.ts';
import { ApiError, apiErrorOf } from './api-error.ts';

/**
 * The typed API client: request and response types come from the OpenAPI description the master
 * serves (src/api/openapi.json, exported by scripts/export-openapi.ts; schema.d.ts generated from
 * it by openapi-typescript), never hand-copied.
 */
export const api = createClient<paths>({ baseUrl: '' });

const auth: Middleware = {
  onRequest({ request }) {
    for (const [k, v] of Object.entries(authHeaders())) if (!request.headers.has(k)) request.headers.set(k, v);
    return request;
  },
  onResponse({ response, request }) {
    // An expired or revoked session: back to the login page (not for the login call itself).
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/auth/')) writeSession(null);
    return response;
  },
};
api.use(auth);

/** The `data` of a success envelope, or the error thrown as an ApiError (what TanStack Query shows). */
export async function unwrap<T>(
  call: Promise<{ data?: { data: T } | undefined; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw apiErrorOf(response.status, error);
  return data.data;
}

/** `unwrap`, plus the `X-Total-Count` header of paged lists. */
export async function unwrapPage<T>(
  call: Promise<{ data?: { data: T } | undefined; error?: unknown; response: Response }>,
): Promise<{ items: T; total: number }> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw apiErrorOf(response.status, error);
  const total = Number(response.headers.get('x-total-count') ?? NaN);
  return { items: data.data, total: Number.isFinite(total) ? total : Array.isArray(data.data) ? data.data.length : 0 };
}

/**
 * A file the API answers (downloads, CSV exports): fetched with the session's credentials, then
 * handed to the browser as a download. The bearer token cannot ride on a plain link.
 */
export async function downloadFile(path: string, fallbackName: string): Promise<void> {
  const response = await fetch(path, { headers: authHeaders() });
  if (!response.ok) throw apiErrorOf(response.status, await response.json().catch(() => undefined));
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1];
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name ? decodeURIComponent(name) : fallbackName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export { ApiError };
