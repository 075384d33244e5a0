import { ProviderError } from '@backplane/plugin-api';

/**
 * SQL text the PostgreSQL driver builds itself (identifiers cannot be bind parameters), and the
 * check of a plain dump's header and trailer: pure functions, tested without a server.
 */

/** NAMEDATALEN - 1: longer identifiers are silently truncated by the server, so they are refused. */
export const PG_MAX_NAME_BYTES = 63;

/** A double-quoted identifier: `"` doubled, so any name is one identifier (never SQL). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function shown(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/** A name the driver may create, drop or rename: non-empty, no NUL, at most 63 bytes (UTF-8). */
export function checkedPgDatabaseName(name: string): string {
  if (typeof name !== 'string' || name === '')
    throw new ProviderError('permanent', 'postgresql: the database name is empty');
  if (name.includes('\0'))
    throw new ProviderError(
      'permanent',
      `postgresql: invalid database name ${shown(name)}: it contains a NUL character`,
    );
  if (Buffer.byteLength(name, 'utf8') > PG_MAX_NAME_BYTES) {
    throw new ProviderError(
      'permanent',
      `postgresql: invalid database name ${shown(name)}: longer than ${PG_MAX_NAME_BYTES} bytes`,
    );
  }
  return name;
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let out = '';
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    out += char;
  }
  return out;
}

/** `<target>__bp_old_<hex>`, the target's part shortened so the whole stays within 63 bytes. */
export function oldDatabaseName(target: string, hex: string): string {
  const suffix = `__bp_old_${hex}`;
  return `${truncateUtf8(target, PG_MAX_NAME_BYTES - Buffer.byteLength(suffix, 'utf8'))}${suffix}`;
}

const HEADER = /^-- PostgreSQL database dump\r?$/m;
const TRAILER = '-- PostgreSQL database dump complete';

/**
 * A plain pg_dump starts with `-- PostgreSQL database dump` and ends with `-- PostgreSQL database
 * dump complete`, which pg_dump writes only after the last object. After the trailer come only
 * comment lines, blank lines and psql's `\unrestrict <key>` (pg_dump 13.22/14.19/15.14/16.10/17.6
 * and later); anything else means the trailer was a table's data and the dump was cut short.
 */
export function checkPgDump(head: Buffer, tail: Buffer): string | undefined {
  if (!HEADER.test(head.toString('latin1')))
    return 'the dump has no pg_dump header: it is not a PostgreSQL plain-format dump';
  const end = tail.toString('latin1');
  const at = end.lastIndexOf(TRAILER);
  if (at < 0 || (at > 0 && end[at - 1] !== '\n')) return 'the dump has no completion trailer: it was cut short';
  const [rest = '', ...after] = end.slice(at + TRAILER.length).split('\n');
  const trailing = (line: string) => /^\s*$/.test(line) || line.startsWith('--') || /^\\unrestrict \S+\r?$/.test(line);
  if (!/^\r?$/.test(rest) || !after.every(trailing))
    return 'the dump goes on after its completion trailer: it was cut short or altered';
  return undefined;
}
