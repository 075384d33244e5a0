import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/build.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { openBrowser, screenshot } from '../helpers/browser.ts';

/** The console this checkout serves (npm install builds it; CI too): the test drives the real one. */
const CONSOLE_DIST = join(import.meta.dirname, '..', '..', 'packages', 'console', 'dist');

test('a real master serves the built console to a real browser: it loads with its title and no error', { timeout: 120_000 }, async (t) => {
  assert.ok(existsSync(join(CONSOLE_DIST, 'index.html')), 'console not built: run npm run build -w @backplane/console');
  const dataDir = await tempDir(t);
  const server = await startServerProcess({ BACKPLANE_DATA_DIR: dataDir });
  t.after(() => server.stop());
  const { page, errors } = await openBrowser(t);

  const response = await page.goto(`${server.url}/`);
  assert.equal(response?.status(), 200);
  assert.match(await page.title(), /Backplane/);
  // React rendered something visible (Mantine's <style> element comes first and is not): the
  // bundle loaded and ran under the page's CSP.
  await page.locator('#root :not(style)').first().waitFor();
  await screenshot(page, 'smoke-console');
  assert.deepEqual(errors, [], 'the page logged no error (a CSP refusal would be one)');
});
