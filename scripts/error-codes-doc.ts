/**
 * Rewrites the table in docs/error-codes.md from core/http/error-catalogue.ts.
 *   node_modules/.bin/node scripts/error-codes-doc.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { ERROR_CATALOGUE } from '../core/http/error-catalogue.ts';

const path = new URL('../docs/error-codes.md', import.meta.url);
const doc = readFileSync(path, 'utf8');
const header = '| Code | HTTP status | Meaning |\n|---|---|---|\n';
const start = doc.indexOf(header);
if (start < 0) throw new Error('table header not found in docs/error-codes.md');
const end = doc.indexOf('\n\n', start);
const rows = Object.entries(ERROR_CATALOGUE)
  .map(([code, [status, message]]) => `| \`${code}\` | ${status} | ${message} |`)
  .join('\n');
writeFileSync(path, doc.slice(0, start) + header + rows + doc.slice(end));
console.log(`docs/error-codes.md: ${Object.keys(ERROR_CATALOGUE).length} codes`);
