import type { DiscoveredDatabase } from './wire.ts';

// Apart from wire.ts so that an agent shapes what it found without loading TypeBox (the
// schemas are the master's, for validation; the agent needs only their types).

/** One database as a driver found it or an agent sent it, shaped and bounded (both sides apply it). */
export function discovered(d: { name?: unknown; sizeBytes?: unknown; system?: unknown }): DiscoveredDatabase {
  return { name: String(d.name ?? '').slice(0, 255), sizeBytes: typeof d.sizeBytes === 'number' ? d.sizeBytes : null, system: d.system === true };
}
