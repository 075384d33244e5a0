import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/build.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { openBrowser, screenshot } from '../helpers/browser.ts';
import { CONSOLE_DIST } from '../helpers/console.ts';

test('a real master serves the built console to a real browser: it loads with its title and no error', {
  timeout: 120_000,
}, async (t) => {
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

test('/api/docs lists every area of the description in a real browser, and an area all its operations', {
  timeout: 120_000,
}, async (t) => {
  const dataDir = await tempDir(t);
  const server = await startServerProcess({ BACKPLANE_DATA_DIR: dataDir });
  t.after(() => server.stop());
  const { page, errors } = await openBrowser(t);
  const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  const byTag = new Map<string, number>();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) for (const tag of op.tags ?? []) byTag.set(tag, (byTag.get(tag) ?? 0) + 1);
  }

  // Swagger UI, its files and the description all from this server (test/http/openapi.test.ts checks
  // the description route by route): every area, folded; an area opens on all its operations, and
  // an operation on its responses.
  await page.goto(`${server.url}/api/docs`);
  await page.locator('.opblock-tag').first().waitFor();
  assert.deepEqual(
    await page.locator('.opblock-tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag'))),
    [...byTag.keys()],
  );
  await page.locator('.opblock-tag[data-tag="backup"]').click();
  const backupOps = byTag.get('backup') ?? 0;
  await page
    .locator('.opblock')
    .nth(backupOps - 1)
    .waitFor();
  assert.equal(await page.locator('.opblock').count(), backupOps, 'the area shows each of its operations');
  await page
    .locator('.opblock-summary-path', { hasText: /^\/api\/backup\/records\/\{id\}\/restore$/ })
    .first()
    .click();
  await page.getByText('Responses').first().waitFor();
  await page.getByText('ErrorEnvelope').first().waitFor();
  await screenshot(page, 'api-docs');
  assert.deepEqual(errors, [], 'the reference UI logged no error');
});
