/**
 * Writes the OpenAPI description to a file, for the console's generated API client:
 *   node_modules/.bin/node scripts/export-openapi.ts <outfile>
 * Builds the real app on a throwaway data directory (nothing of an installation is read or
 * touched), asks it for /api/openapi.json, and writes it with sorted keys, so the file changes
 * only when the API does.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildApp } from '../core/app.ts';
import { loadConfig } from '../core/config/load-config.ts';
import { OPENAPI_PATH } from '../core/http/openapi.ts';

/** Object keys in code-point order at every depth; arrays keep their order (it means something). */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/export-openapi.ts <outfile>');
  process.exit(2);
}

const dataDir = await mkdtemp(join(tmpdir(), 'backplane-openapi-'));
try {
  // No environment and no config file: the description is the installation's own (built-in
  // plugins), whatever the machine that runs this has configured.
  const config = loadConfig({
    env: {},
    cwd: dataDir,
    overrides: { dataDir, logLevel: 'silent', tempSweepIntervalSeconds: 0 },
  });
  const app = await buildApp(config, { logLevel: 'silent' });
  try {
    const res = await app.inject({ method: 'GET', url: OPENAPI_PATH });
    if (res.statusCode !== 200)
      throw new Error(`${OPENAPI_PATH} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
    await writeFile(resolve(out), `${JSON.stringify(sortKeys(res.json()), null, 2)}\n`);
  } finally {
    await app.close();
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
console.log(`wrote ${resolve(out)}`);
