import type { FastifyRequest } from 'fastify';

/**
 * Addresses that are never the console's, so an unknown one there keeps its JSON 404: the API,
 * the agent installer, the probes and metrics, the Google Drive landing page, and the console's
 * own assets (a missing script must fail as a 404, not arrive as a page).
 */
const NOT_CONSOLE_PREFIXES = ['/api', '/install', '/health', '/ready', '/metrics', '/storage-targets', '/assets'];

export function isConsolePath(path: string): boolean {
  return !NOT_CONSOLE_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

interface MediaRange {
  type: string;
  q: number;
}

function mediaRanges(accept: string): MediaRange[] {
  return accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return { type, q: q === undefined ? 1 : Number(q.slice(2)) || 0 };
  });
}

/**
 * The client names HTML among what it accepts: what a browser sends when it navigates. `*\/*`
 * alone does not count, so curl, fetch() and API clients keep getting the JSON 404.
 */
export function acceptsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (!accept) return false;
  return mediaRanges(accept).some((r) => (r.type === 'text/html' || r.type === 'application/xhtml+xml') && r.q > 0);
}

/** The client asks for JSON and not for HTML: it gets the error envelope rather than a page. */
export function wantsJsonOnly(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (!accept || acceptsHtml(request)) return false;
  return mediaRanges(accept).some((r) => r.type === 'application/json' && r.q > 0);
}

/** A page the console could show: GET or HEAD (never a write), outside the API's prefixes, from a browser. */
export function isPageRequest(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  return isConsolePath(request.url.split('?')[0]!) && acceptsHtml(request);
}
