/** Small text helpers shared by the engine, the backup service and recovery. */

/** An error's message (or the value as text), for records, logs and per-target results. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Bytes in binary units for log lines: `512 B`, `3.2 MiB`. */
export function humanBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let n = bytes;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}
