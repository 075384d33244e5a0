/**
 * The check of a SQLite dump (a page-for-page copy made by the backup API) from its first and
 * last bytes: a pure function, tested without a file.
 *
 * A SQLite file has no trailer, so a copy cut short at a page boundary is only visible when the
 * whole file is: then (`head` and `tail` are the same bytes) its length must be a whole number
 * of pages, and exactly the page count the header records. For larger files the header is
 * checked, and the integrity check of a restore (`sqlite-restore.ts`) catches the rest.
 */

const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER_BYTES = 100;

export function checkSqliteDump(head: Buffer, tail: Buffer): string | undefined {
  if (head.length < MAGIC.length || !head.subarray(0, MAGIC.length).equals(MAGIC))
    return 'the dump is not a SQLite database: it does not start with "SQLite format 3"';
  if (head.length < HEADER_BYTES) return 'the dump is shorter than the SQLite header: it was cut short';
  // Bytes 16-17: the page size, a power of two from 512 to 32768, or 1 for 65536.
  const raw = head.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
    return `the SQLite header is damaged: invalid page size ${raw}`;
  // Bytes 21-23: the payload fractions, fixed at 64, 32 and 32 by the file format.
  if (head[21] !== 64 || head[22] !== 32 || head[23] !== 32)
    return 'the SQLite header is damaged: invalid payload fractions';
  const whole = head.length === tail.length && head.equals(tail);
  if (!whole) return undefined;
  if (head.length % pageSize !== 0) return `the dump is not a whole number of ${pageSize}-byte pages: it was cut short`;
  // Bytes 28-31: the page count, valid when the change counter (24-27) equals bytes 92-95.
  const pages = head.readUInt32BE(28);
  if (pages > 0 && head.readUInt32BE(24) === head.readUInt32BE(92) && head.length !== pages * pageSize) {
    return `the dump holds ${head.length / pageSize} of the ${pages} pages its header records: it was cut short`;
  }
  return undefined;
}
