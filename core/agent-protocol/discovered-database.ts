/** One database in a discovery reply (what a driver found, or what an agent sent), shaped and bounded. */
export function discovered(d: { name?: unknown; sizeBytes?: unknown; system?: unknown }): { name: string; sizeBytes: number | null; system: boolean } {
  return { name: String(d.name ?? '').slice(0, 255), sizeBytes: typeof d.sizeBytes === 'number' ? d.sizeBytes : null, system: d.system === true };
}
