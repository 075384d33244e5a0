/**
 * SQL text the MySQL driver builds itself (identifiers cannot be placeholders), and the check of
 * a mysqldump's header and trailer: pure functions, tested without a server.
 */

/** A backtick-quoted identifier: backticks doubled, so any name is one identifier (never SQL). */
export function quoteIdent(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** `-- MySQL dump 10.13  Distrib 8.0.36...` or `-- MariaDB dump 10.19  Distrib 10.11...` (MariaDB may put a sandbox-mode comment first). */
const HEADER = /^-- (?:MySQL|MariaDB) dump\b/m;
const TRAILER = '-- Dump completed';

/**
 * mysqldump writes `-- Dump completed on <date>` (`-- Dump completed` with --skip-dump-date) as
 * its very last line, after every table, routine and event, so a dump without it was cut short
 * (the driver's arguments keep comments on: no --compact or --skip-comments). Only blank lines
 * may follow it; anything else means the text was a table's data.
 */
export function checkMysqlDump(head: Buffer, tail: Buffer): string | undefined {
  if (!HEADER.test(head.toString('latin1')))
    return 'the dump has no mysqldump header: it is not a MySQL or MariaDB dump';
  const end = tail.toString('latin1');
  const at = end.lastIndexOf(TRAILER);
  if (at < 0 || (at > 0 && end[at - 1] !== '\n')) return 'the dump has no completion trailer: it was cut short';
  const [rest = '', ...after] = end.slice(at + TRAILER.length).split('\n');
  if (!/^(?: on \d{4}-\d\d-\d\d +\d{1,2}:\d\d:\d\d)?\r?$/.test(rest) || !after.every((line) => /^\s*$/.test(line))) {
    return 'the dump goes on after its completion trailer: it was cut short or altered';
  }
  return undefined;
}
