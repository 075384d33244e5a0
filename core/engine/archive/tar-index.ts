import type { ManifestEntry } from './manifest-entry.ts';

/**
 * Reads GNU tar's verbose listing (`-vv --full-time --quoting-style=c`, run with `LC_ALL=C` and
 * `TZ=UTC`) back into manifest entries, one line per archived member:
 *
 *   -rw-r--r-- root/root      1234 2026-11-26 13:57:30.123456789 "etc/hosts"
 *   lrwxrwxrwx root/root         0 2026-11-26 13:57:30.0 "etc/mtab" -> "../proc/self/mounts"
 *
 * C quoting makes every name unambiguous (quotes, backslashes, newlines and non-ASCII bytes are
 * escaped), so this is a parser, not a guess.
 */

const LINE =
  /^([-dlhcbps])([-rwxsStT]{9}) .*? ([\d,]+) (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(\.\d+)? +"((?:[^"\\]|\\.)*)"(?:(?: ->| link to) "((?:[^"\\]|\\.)*)")?$/;

const SIMPLE_ESCAPES: Record<string, number> = {
  n: 10,
  t: 9,
  r: 13,
  a: 7,
  b: 8,
  f: 12,
  v: 11,
  '\\': 92,
  '"': 34,
  '?': 63,
  "'": 39,
};

/** Undoes `--quoting-style=c` escaping (the quotes already removed); bytes are read as UTF-8. */
export function unquoteC(text: string): string {
  if (!text.includes('\\')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== '\\') {
      for (const b of Buffer.from(ch)) bytes.push(b);
      continue;
    }
    const next = text[i + 1] ?? '';
    const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8) & 0xff);
      i += octal[0].length;
    } else {
      bytes.push(SIMPLE_ESCAPES[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Permission bits of `rwsr-xr-t`-style text. */
export function modeBits(perms: string): number {
  let mode = 0;
  const bit = (i: number, on: number): void => {
    if (perms[i] !== '-') mode |= on;
  };
  bit(0, 0o400);
  bit(1, 0o200);
  bit(3, 0o040);
  bit(4, 0o020);
  bit(6, 0o004);
  bit(7, 0o002);
  const exec = (i: number, x: number, special: number, upper: string, lower: string): void => {
    const c = perms[i];
    if (c === 'x' || c === lower) mode |= x;
    if (c === lower || c === upper) mode |= special;
  };
  exec(2, 0o100, 0o4000, 'S', 's');
  exec(5, 0o010, 0o2000, 'S', 's');
  exec(8, 0o001, 0o1000, 'T', 't');
  return mode;
}

/**
 * One listing line as a manifest entry; `null` for a member the manifest does not list (FIFOs,
 * devices, hard links: the walk never names them, so they appear only when a file was swapped
 * for one between the walk and tar) or a line that is not a member (an empty line).
 */
export function parseIndexLine(line: string): ManifestEntry | null {
  const m = LINE.exec(line);
  if (!m) return null;
  const [, kind, perms, size, stamp, fraction, name, link] = m;
  if (!/^\d+$/.test(size!)) return null;
  const type = kind === '-' ? 'file' : kind === 'd' ? 'directory' : kind === 'l' ? 'symlink' : undefined;
  if (!type) return null;
  const millis = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
  const mtime = new Date(Date.parse(`${stamp!.replace(' ', 'T')}Z`) + millis);
  const path = unquoteC(name!).replace(/\/+$/, '');
  const entry: ManifestEntry = { path, size: type === 'file' ? Number(size) : 0, mtime, mode: modeBits(perms!), type };
  if (type === 'symlink' && link !== undefined) entry.linkname = unquoteC(link);
  return entry;
}

/** Any member line, whatever its type (`-`, `d`, `l`, `h` hard link, `c`/`b` device, `p` FIFO): its type letter and name. */
export function listedMember(line: string): { kind: string; name: string } | null {
  const m = LINE.exec(line);
  return m ? { kind: m[1]!, name: unquoteC(m[6]!).replace(/\/+$/, '') } : null;
}
