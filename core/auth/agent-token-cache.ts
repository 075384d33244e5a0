/** What an agent request needs of its node, without loading it: who it is and what the heartbeat answers. */
export interface AgentNode {
  nodeId: number;
  nodeName: string;
  maxConcurrent: number;
  bandwidthLimit: string;
  labels: string;
}

/** How long a token's node is remembered: a change made on another master reaches this one within it. */
export const AGENT_TOKEN_TTL_MS = 5_000;

/**
 * Agent tokens already checked, by their SHA-256: every agent authenticates on every heartbeat
 * and poll, and the lookup was the first query of each. An entry lives 5 seconds (no longer
 * than a previous token's grace), and any change to a node on this master (update, rotation,
 * enrollment, deletion) empties the cache at once. Per process: with several masters, a token
 * revoked on one keeps working on another for at most 5 seconds.
 */
export class AgentTokenCache {
  readonly #entries = new Map<string, { node: AgentNode; until: number }>();
  readonly #max: number;

  constructor(max = 100_000) {
    this.#max = max;
  }

  get(hash: string, now = Date.now()): AgentNode | undefined {
    const entry = this.#entries.get(hash);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.#entries.delete(hash);
      return undefined;
    }
    return entry.node;
  }

  /** Remembers a token's node, at most until `validUntil` (a previous token's end of grace). */
  set(hash: string, node: AgentNode, validUntil: Date | null = null, now = Date.now()): void {
    if (this.#entries.size >= this.#max) this.#entries.clear();
    this.#entries.set(hash, { node, until: Math.min(now + AGENT_TOKEN_TTL_MS, validUntil?.getTime() ?? Infinity) });
  }

  /** A node changed: forget every token (changes are rare; heartbeats refill it). */
  clear(): void {
    this.#entries.clear();
  }
}
