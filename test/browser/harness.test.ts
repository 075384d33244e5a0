import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/build.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { openBrowser, screenshot } from '../helpers/browser.ts';

/**
 * The browser harness on a console of the test's own (BACKPLANE_CONSOLE_DIR): a page address
 * loads index.html, its script runs, and what the page's CSP refuses (an inline script) reaches
 * the error list, so browser tests asserting "no errors" would see a CSP the console breaks.
 */
test("browser harness: the console CSP lets the page's own script run, refuses an inline one, and the refusal is reported", {
  timeout: 120_000,
}, async (t) => {
  const dataDir = await tempDir(t);
  const dist = join(dataDir, 'console');
  await mkdir(join(dist, 'assets'), { recursive: true });
  await writeFile(
    join(dist, 'index.html'),
    `<!doctype html><html><head><title>Backplane test console</title>
<script type="module" src="/assets/app-abc123.js"></script></head>
<body><div id="root"></div><script>document.title = 'inline ran';</script></body></html>`,
  );
  await writeFile(
    join(dist, 'assets', 'app-abc123.js'),
    `document.getElementById('root').textContent = 'rendered at ' + location.pathname;`,
  );
  const server = await startServerProcess({ BACKPLANE_DATA_DIR: dataDir, BACKPLANE_CONSOLE_DIR: dist });
  t.after(() => server.stop());
  const { page, errors } = await openBrowser(t);

  // A client-side address: the master answers it with index.html.
  const response = await page.goto(`${server.url}/tasks/12`);
  assert.equal(response?.status(), 200);
  await page.getByText('rendered at /tasks/12').waitFor();
  assert.equal(await page.title(), 'Backplane test console', 'the inline script did not run');
  const path = await screenshot(page, 'harness-test-console');
  assert.ok(existsSync(path));
  assert.equal(errors.length, 1, errors.join('\n'));
  assert.match(errors[0]!, /Content Security Policy/);
});
