/**
 * Spreadsheet programs execute cells that start with = + - @ (CSV injection); a leading
 * apostrophe makes them text. Audit details and names come from users, so every cell passes here.
 */
export function csvSafe(value: string | number | boolean | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** `backplane-<what>-YYYYMMDD-HHMMSS.csv` in UTC. */
export function exportFileName(what: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `backplane-${what}-${stamp}.csv`;
}
