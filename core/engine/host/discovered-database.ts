/** One database a driver found (the wire's `DiscoveredDatabase` has this shape). */
export interface DiscoveredDatabase {
  name: string;
  sizeBytes: number | null;
  system: boolean;
}

/** One database as a driver found it or an agent sent it, shaped and bounded (both sides apply it). */
export function discovered(d: { name?: unknown; sizeBytes?: unknown; system?: unknown }): DiscoveredDatabase {
  return {
    name: String(d.name ?? '').slice(0, 255),
    sizeBytes: typeof d.sizeBytes === 'number' ? d.sizeBytes : null,
    system: d.system === true,
  };
}
