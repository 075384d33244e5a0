/**
 * Node settings and installer commands as the API takes and gives them. Pure (no DOM): tested
 * with node --test (test/console/node-form.test.ts).
 */

/** core/features/nodes/node-schemas.ts BANDWIDTH_PATTERN: '' (no limit) or digits, optional fraction, optional K/M/G (bytes per second). */
const BANDWIDTH = /^(\d{1,9}(\.\d{1,3})?[KMG]?)?$/;

export function isBandwidth(value: string): boolean {
  return BANDWIDTH.test(value.trim());
}

/** The view's labels (a CSV string) as a list: trimmed, no blanks, no repeats. */
export function parseLabels(csv: string): string[] {
  return [
    ...new Set(
      csv
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    ),
  ];
}

export interface NodeSettingsValues {
  name: string;
  labels: string[];
  maxConcurrent: number;
  bandwidthLimit: string;
}

/**
 * The body of POST /api/nodes or PUT /api/nodes/{id}. The local node's concurrency and bandwidth
 * come from the master's settings (the API refuses other values), so they are not sent for it.
 */
export function nodeBody(
  values: NodeSettingsValues,
  isLocal = false,
): { name: string; labels: string[]; maxConcurrent?: number; bandwidthLimit?: string } {
  const body = { name: values.name.trim(), labels: [...new Set(values.labels.map((l) => l.trim()).filter(Boolean))] };
  if (isLocal) return body;
  return {
    ...body,
    maxConcurrent: Math.max(0, Math.min(64, Math.trunc(values.maxConcurrent) || 0)),
    bandwidthLimit: values.bandwidthLimit.trim(),
  };
}

/** A word as POSIX sh reads it literally (single quotes; a quote inside closes, escapes and reopens). */
export function shQuote(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Downloads the installer's compose file (one use of the installer) and starts the containerised agent with it. */
export function composeCommand(composeUrl: string): string {
  const file = 'backplane-agent-compose.yml';
  return `curl -fsSL ${shQuote(composeUrl)} -o ${file} && docker compose -f ${file} up -d`;
}

/** Running an agent by hand with the node token (docs/operations.md "Running an agent"). */
export function manualAgentCommand(masterUrl: string, token: string): string {
  return `BACKPLANE_AGENT_TOKEN=${shQuote(token)} npm run agent -- --master ${shQuote(masterUrl)}`;
}

/** Installer lifetimes the API accepts (ttlMinutes 5-1440). */
export const INSTALLER_TTLS = [15, 60, 240, 1440] as const;
