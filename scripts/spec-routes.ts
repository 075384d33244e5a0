// The spec's route list (../shared/spec.md, next to the repository) as test/http/spec-routes.json,
// so the OpenAPI test walks it on a checkout without the spec beside it. Run after the spec
// changes: `node_modules/.bin/node scripts/spec-routes.ts`; the test fails while the copy is stale.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SPEC_FILE = join(ROOT, '..', 'shared', 'spec.md');
export const SNAPSHOT_FILE = join(ROOT, 'test', 'http', 'spec-routes.json');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface SpecRoutes {
  routes: { method: string; path: string }[];
  /** Segments the spec writes as stand-ins for names the implementation chooses. */
  placeholders: string[];
}

/** The endpoint rows `| METHOD | \`/path\` | Access | Purpose |`; a cell may hold words after the path. */
export function parseSpec(text: string): SpecRoutes {
  const routes: SpecRoutes['routes'] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !METHODS.includes(cells[1]!.toUpperCase())) continue;
    const path = /`([^`]+)`/.exec(cells[2]!)?.[1];
    if (path?.startsWith('/')) routes.push({ method: cells[1]!.toUpperCase(), path });
  }
  // "The path segments `cloud-drive` and `sync-tool` stand for the names of ...".
  const placeholders = new Set<string>();
  for (const sentence of text.matchAll(/path segments? ((?:`[^`]+`(?:,| and| or|\s)*)+)stands? for/gi)) {
    for (const name of sentence[1]!.matchAll(/`([^`]+)`/g)) placeholders.add(name[1]!);
  }
  return { routes, placeholders: [...placeholders].sort() };
}

export function readSnapshot(): SpecRoutes {
  return JSON.parse(readFileSync(SNAPSHOT_FILE, 'utf8')) as SpecRoutes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!existsSync(SPEC_FILE)) throw new Error(`no spec at ${SPEC_FILE}`);
  const parsed = parseSpec(readFileSync(SPEC_FILE, 'utf8'));
  writeFileSync(SNAPSHOT_FILE, `${JSON.stringify(parsed, null, 2)}\n`);
  console.log(`wrote ${SNAPSHOT_FILE}: ${parsed.routes.length} routes`);
}
