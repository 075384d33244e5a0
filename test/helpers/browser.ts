import type { TestContext } from 'node:test';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium package (scripts/test-prerequisites.sh installs it; the same variable moves both). */
export const CHROMIUM = process.env.BACKPLANE_TEST_CHROMIUM ?? '/usr/bin/chromium';
/** Where screenshots land: test-artifacts/ at the repository root (gitignored), kept after the run for a look. */
export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');

/** Bounds on every wait, so a page that never settles fails the test instead of hanging the suite. */
const ACTION_TIMEOUT_MS = 15_000;
const NAVIGATION_TIMEOUT_MS = 60_000;
const LAUNCH_TIMEOUT_MS = 60_000;

/**
 * A browser that does only what the test asks: no sandbox (tests run as root in containers), no
 * GPU, nothing fetched in the background (updates, sync, components), no QUIC to other hosts.
 * Playwright's launch() gives every browser a fresh temporary profile of its own and removes it
 * on close, so no --user-data-dir is passed (launch() refuses one).
 */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Containers often give /dev/shm 64 MB, which Chromium's renderers outgrow.
  '--disable-dev-shm-usage',
];

/**
 * Chromium asks for /favicon.ico by itself when a page names no icon, and logs the 404 as a
 * console error: the browser's request, not the page's, so it is no error of the page.
 */
function isOwnFaviconRequest(url: string): boolean {
  try {
    return new URL(url).pathname === '/favicon.ico';
  } catch {
    return false;
  }
}

export interface OpenBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /**
   * What went wrong inside the pages so far, in order: console.error messages (CSP refusals and
   * failed loads among them) and uncaught exceptions. A test asserts it stays empty.
   */
  errors: string[];
}

/** Launches headless Chromium with a fresh context and one page; closed when the test ends. */
export async function openBrowser(t: TestContext, options: { baseURL?: string } = {}): Promise<OpenBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: run scripts/test-prerequisites.sh as root (or apt-get install chromium), or set BACKPLANE_TEST_CHROMIUM`,
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    timeout: LAUNCH_TIMEOUT_MS,
  });
  // Bounded: a browser that does not close must not hold the test run.
  t.after(() => browser.close(), { timeout: 30_000 });
  const context = await browser.newContext({
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    viewport: { width: 1280, height: 800 },
  });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
  const errors: string[] = [];
  const watch = (page: Page): void => {
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const { url, lineNumber } = message.location();
      if (isOwnFaviconRequest(url)) return;
      errors.push(`console.error: ${message.text()}${url ? ` (${url}:${lineNumber})` : ''}`);
    });
    page.on('pageerror', (err) => errors.push(`uncaught: ${err.stack ?? err.message}`));
  };
  // Pages the test opens later (popups, context.newPage()) report into the same list.
  context.on('page', watch);
  const page = await context.newPage();
  return { browser, context, page, errors };
}

/** Saves a full-page PNG as test-artifacts/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  if (!/^[A-Za-z0-9._-]+$/.test(name))
    throw new Error(`screenshot name "${name}": letters, digits, dot, dash and underscore only`);
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
