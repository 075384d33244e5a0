/**
 * Fails when a source line is longer than the limit (160 characters; the formatter's width is
 * 120, and this catches what it cannot break: long strings, comments, template literals):
 *   node_modules/.bin/node scripts/check-line-length.ts [--max N] [--summary]
 * Source is the project's JavaScript and TypeScript outside generated files (see GENERATED).
 * Every offending line is printed as path:line: length; --summary prints one line per file.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const SCOPE = ['core', 'agent', 'plugins', 'packages', 'test', 'bench', 'scripts', 'config'];
const EXTENSIONS = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git']);

/** Generated files: their lines are what a tool wrote (regenerate them, do not wrap them). */
const GENERATED: readonly RegExp[] = [
  // openapi-typescript's output (npm run console:api).
  /^packages\/console\/src\/api\/schema\.d\.ts$/,
  // Numbered migrations: DDL strings as scripts/migration-sql.ts printed them, frozen once shipped.
  /^core\/db\/migrations\/\d{3}-[^/]+\.ts$/,
];

function parseArgs(argv: string[]): { max: number; summary: boolean } {
  let max = 160;
  let summary = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--summary') summary = true;
    else if (arg === '--max' && argv[i + 1] !== undefined) max = Number(argv[++i]);
    else {
      console.error('usage: node scripts/check-line-length.ts [--max N] [--summary]');
      process.exit(2);
    }
  }
  if (!Number.isInteger(max) || max <= 0) {
    console.error('--max takes a positive integer');
    process.exit(2);
  }
  return { max, summary };
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* sourceFiles(path);
    } else if (entry.isFile() && EXTENSIONS.test(entry.name)) {
      const rel = relative(ROOT, path).split(sep).join('/');
      if (!GENERATED.some((re) => re.test(rel))) yield rel;
    }
  }
}

const { max, summary } = parseArgs(process.argv.slice(2));
let files = 0;
let long = 0;
const perFile = new Map<string, number>();
for (const top of SCOPE) {
  for await (const rel of sourceFiles(join(ROOT, top))) {
    files++;
    const lines = (await readFile(join(ROOT, rel), 'utf8')).split('\n');
    lines.forEach((line, i) => {
      // Characters as an editor counts them (code points), not UTF-16 units.
      const length = [...line.replace(/\r$/, '')].length;
      if (length <= max) return;
      long++;
      perFile.set(rel, (perFile.get(rel) ?? 0) + 1);
      if (!summary) console.log(`${rel}:${i + 1}: ${length} characters`);
    });
  }
}
if (summary) for (const [rel, n] of perFile) console.log(`${rel}: ${n}`);
if (long > 0) {
  console.error(
    `${long} line(s) in ${perFile.size} file(s) are longer than ${max} characters (${files} files checked).`,
  );
  process.exit(1);
}
console.log(`No line is longer than ${max} characters (${files} files checked).`);
