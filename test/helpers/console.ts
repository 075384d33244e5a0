import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { screenshot } from './browser.ts';
import { ADMIN, tempDir } from './build.ts';
import { api, startServerProcess, type ServerProcess } from './server-process.ts';

/** The console this checkout serves (npm install builds it; CI too): the browser tests drive the real one. */
export const CONSOLE_DIST = join(import.meta.dirname, '..', '..', 'packages', 'console', 'dist');

export { ADMIN };

/**
 * A fresh master process on its own temp data dir, serving the built console; stopped when the
 * test ends. `fsRoot` becomes the only folder the master's filesystem browser may show.
 */
export async function startConsoleMaster(
  t: TestContext,
  options: { fsRoot?: string; env?: Record<string, string> } = {},
): Promise<ServerProcess> {
  assert.ok(existsSync(join(CONSOLE_DIST, 'index.html')), 'console not built: run npm run build -w @backplane/console');
  const dataDir = await tempDir(t, 'backplane-browser-data-');
  const server = await startServerProcess({
    BACKPLANE_DATA_DIR: dataDir,
    ...(options.fsRoot ? { BACKPLANE_LOCAL_FS_ROOTS: options.fsRoot } : {}),
    ...options.env,
  });
  t.after(() => server.stop());
  return server;
}

/** First-admin setup over the API; returns the admin's bearer token. */
export async function setupAdminApi(url: string): Promise<string> {
  const res = await api(`${url}/api/auth/setup`, 'POST', undefined, ADMIN);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.token as string;
}

/** One API call that must answer 200; returns the envelope's `data`. */
export async function apiOk(url: string, method: string, token: string, path: string, body?: unknown): Promise<any> {
  const res = await api(`${url}${path}`, method, token, body);
  assert.equal(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Signs in through the login page (already on it, or sent there) and waits for the dashboard. */
export async function signIn(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  if (!new URL(page.url(), baseUrl).pathname.startsWith('/login')) await page.goto(`${baseUrl}/login`);
  await page.getByRole('heading', { level: 1, name: 'Sign in to Backplane' }).waitFor();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${baseUrl}/`);
  await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
}

/** The page's one h1, once rendered (every console page has exactly one, from PageHeader). */
export async function waitForH1(page: Page, name?: string | RegExp): Promise<string> {
  const h1 = page.getByRole('heading', { level: 1, ...(name === undefined ? {} : { name }) });
  await h1.first().waitFor();
  // A page still loading shows a loader without an h1, or the layout's previous page: one h1 only.
  assert.equal(await h1.count(), 1, 'one h1 on the page');
  return (await h1.textContent()) ?? '';
}

/**
 * One named part of a long browser flow: a failure names the step and leaves a screenshot of the
 * page as it was (test-artifacts/screenshots/failed-<name>.png).
 */
export function stepper(page: Page, testName: string): (name: string, fn: () => Promise<void>) => Promise<void> {
  let n = 0;
  return async (name, fn) => {
    n += 1;
    try {
      await fn();
    } catch (err) {
      await screenshot(page, `failed-${testName}-${n}`).catch(() => undefined);
      if (err instanceof Error) {
        err.message = `step ${n} "${name}": ${err.message}`;
        err.stack = `step ${n} "${name}": ${err.stack ?? ''}`;
      }
      throw err;
    }
  };
}

/** A field's label as its accessible name: Mantine appends " *" to a required field's label. */
export function field(label: string): RegExp {
  return new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\*)?$`);
}
