import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { build } from '../helpers/build.ts';

/**
 * docs/backupx-compatibility.md lists every route with how it compares to BackupX and the
 * compatibility test that pins its shape. This keeps that page true as the API grows: a route
 * the app registers must be listed; a route listed as not built yet must not exist; a listed
 * test file must exist and call the route.
 */
interface Row {
  method: string;
  path: string;
  status: string;
  checkedBy: string;
}

async function rows(): Promise<Row[]> {
  const text = await readFile(new URL('../../docs/backupx-compatibility.md', import.meta.url), 'utf8');
  const out: Row[] = [];
  for (const line of text.split('\n')) {
    const m = /^\|\s*(GET|POST|PUT|DELETE|PATCH)\s*\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|\s*([^|]*?)\s*\|$/.exec(line);
    if (m) out.push({ method: m[1]!, path: m[2]!, status: m[3]!, checkedBy: m[4]! });
  }
  return out;
}

/** `/api/nodes/:id/fs/list` as it appears in a test: a literal with the parameters interpolated. */
function callPattern(path: string): RegExp {
  const escaped = path.split(/:[A-Za-z]+/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(escaped.join('[^/\'"`\\s]+') + '(?![\\w/-])');
}

test('every registered route is listed in docs/backupx-compatibility.md, and only those are listed as built', async (t) => {
  const { app } = await build(t);
  const listed = await rows();
  assert.ok(listed.length >= 100, `the page lists the spec's routes (${listed.length})`);
  const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
  const byKey = new Map(listed.map((r) => [key(r), r]));
  assert.equal(byKey.size, listed.length, 'no route is listed twice');
  const registered = new Set(app.accessTable.map((r) => key({ method: r.method, path: r.url })));
  const unlisted = [...registered].filter((k) => !byKey.has(k));
  assert.deepEqual(unlisted, [], 'routes the app serves that the page does not list');
  const builtButSaysNot = listed.filter((r) => /not built yet/i.test(r.status) && registered.has(key(r))).map(key);
  assert.deepEqual(builtButSaysNot, [], 'routes listed as not built yet that exist');
  const missing = listed.filter((r) => !/not built yet/i.test(r.status) && !registered.has(key(r))).map(key);
  assert.deepEqual(missing, [], 'routes listed as built that the app does not serve');
});

test('every compatibility test the page names exists and calls its route', async () => {
  const wrong: string[] = [];
  for (const row of await rows()) {
    const file = /test\/compat\/[\w.-]+\.test\.ts/.exec(row.checkedBy)?.[0];
    if (!file) continue;
    const url = new URL(`../../${file}`, import.meta.url);
    if (!existsSync(url)) {
      wrong.push(`${row.method} ${row.path}: ${file} does not exist`);
      continue;
    }
    if (!callPattern(row.path).test(await readFile(url, 'utf8')))
      wrong.push(`${row.method} ${row.path}: ${file} never calls it`);
  }
  assert.deepEqual(wrong, []);
});
