import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_CATALOGUE } from '../../core/http/error-catalogue.ts';

test('docs/error-codes.md lists exactly the catalogue, with the same statuses', () => {
  const doc = readFileSync(new URL('../../docs/error-codes.md', import.meta.url), 'utf8');
  const rows = new Map([...doc.matchAll(/^\| `([A-Z0-9_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
  for (const [code, [status]] of Object.entries(ERROR_CATALOGUE)) {
    assert.equal(rows.get(code), status, `${code} should be documented with status ${status}`);
  }
  assert.equal(rows.size, Object.keys(ERROR_CATALOGUE).length, 'the doc lists codes the catalogue does not have');
});

test('codes are upper snake case and statuses are 4xx/5xx', () => {
  for (const [code, [status]] of Object.entries(ERROR_CATALOGUE)) {
    assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
    assert.ok(status >= 400 && status < 600, code);
  }
});
