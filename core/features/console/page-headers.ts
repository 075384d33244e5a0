import type { FastifyReply } from 'fastify';

/**
 * The console's HTML: its scripts, styles, fonts and images come from this origin only, and it
 * talks to this origin only (the API, the event streams). Styles may also be inline: Mantine
 * writes its CSS variables into a <style> element at run time. Scripts may not, so an injected
 * <script> does not run. Nothing may frame it (clickjacking).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers of every HTML response of the console (the API's responses keep theirs). */
export function setPageHeaders(reply: FastifyReply): FastifyReply {
  return (
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CONSOLE_CSP)
      // For browsers without frame-ancestors.
      .header('x-frame-options', 'DENY')
      // Console addresses name records and tasks: other sites need not learn them.
      .header('referrer-policy', 'same-origin')
  );
}

/** index.html names the current hashed assets: revalidated on every load, so a new build is picked up at once. */
export const INDEX_CACHE_CONTROL = 'no-cache';
/** Hashed file names change with their content: a browser may keep them for good. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
