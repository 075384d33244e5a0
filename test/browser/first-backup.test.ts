import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { tempDir } from '../helpers/build.ts';
import { openBrowser, screenshot } from '../helpers/browser.ts';
import { ADMIN, field, signIn, startConsoleMaster, stepper } from '../helpers/console.ts';

/** Every file below `dir`, as paths relative to it. */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/**
 * The "Done when", by clicking only: a fresh master, first-run setup, a local_disk target
 * (tested), a file task for a folder, run now with the live log, the record's contents, one file
 * restored into another folder and compared byte for byte on disk; then log out and in again.
 */
test('first backup and restore in a real browser: setup → target → task → run → browse → restore one file', async (t) => {
  const work = await tempDir(t, 'backplane-browser-first-');
  const source = join(work, 'source');
  const store = join(work, 'store');
  const restoreInto = join(work, 'restored');
  await mkdir(join(source, 'sub'), { recursive: true });
  await mkdir(store);
  await mkdir(restoreInto);
  const chosen = randomBytes(48 * 1024);
  await writeFile(join(source, 'notes.txt'), 'first file of the folder\n');
  await writeFile(join(source, 'data.bin'), randomBytes(4096));
  await writeFile(join(source, 'sub', 'chosen.bin'), chosen);
  await writeFile(join(source, 'sub', 'other.txt'), 'not restored\n');

  const server = await startConsoleMaster(t, { fsRoot: work });
  const base = server.url;
  const { page, errors } = await openBrowser(t);
  const step = stepper(page, 'first-backup');

  await step('a fresh master sends the browser to first-run setup; the admin is created and signed in', async () => {
    await page.goto(`${base}/`);
    await page.waitForURL(`${base}/setup`);
    await page.getByRole('heading', { level: 1, name: 'Welcome to Backplane' }).waitFor();
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel(/^Password/).fill(ADMIN.password);
    await page.getByLabel('Repeat the password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.waitForURL(`${base}/`);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    await screenshot(page, 'first-backup-1-dashboard');
  });

  const targetName = 'Local folder';
  await step('a local_disk storage target is created, tested before saving and after', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Storage targets' }).click();
    await page.getByRole('heading', { level: 1, name: 'Storage targets' }).waitFor();
    await page.getByRole('link', { name: 'Add storage target' }).first().click();
    await page.waitForURL(`${base}/targets/new`);
    await page.getByLabel('Search types').fill('local');
    await page.getByRole('button', { name: /\(local_disk\)$/ }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(targetName);
    await page.getByRole('combobox', { name: 'Base path' }).fill(store);
    await page.getByRole('button', { name: 'Test before saving' }).click();
    await page.getByText('Connection works').waitFor();
    await page.getByRole('button', { name: 'Create target' }).click();
    await page.waitForURL(/\/targets\/\d+$/);
    await page.getByRole('heading', { level: 1, name: targetName }).waitFor();
    await page.getByRole('button', { name: `Test ${targetName}` }).click();
    await page.getByText(`${targetName}: Connection works`).waitFor();
  });

  const taskName = 'Documents';
  await step('a file task is created: the path typed, and checked in the node filesystem browser', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Backup tasks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Backup tasks' }).waitFor();
    await page
      .getByRole('link', { name: /^(New task|Create a task)$/ })
      .first()
      .click();
    await page.waitForURL(`${base}/tasks/new`);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(taskName);
    await page.getByRole('textbox', { name: 'Source path 1', exact: true }).fill(source);

    // The master's filesystem browser: open the folder by typing it, see its entries, pick it.
    await page.getByRole('button', { name: 'Browse' }).click();
    const dialog = page.getByRole('dialog', { name: 'Choose on the node' });
    await dialog.getByLabel('Path').fill(work);
    await dialog.getByRole('button', { name: 'Open', exact: true }).click();
    await dialog.getByRole('button', { name: 'source', exact: true }).click();
    await dialog.getByRole('button', { name: 'sub', exact: true }).waitFor();
    await dialog.getByText('notes.txt', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Select this folder' }).click();
    await dialog.getByRole('button', { name: 'Use the selected path' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The picked folder is the typed one: still one source path.
    assert.equal(await page.getByRole('textbox', { name: 'Source path 1', exact: true }).inputValue(), source);
    assert.equal(await page.getByRole('textbox', { name: 'Source path 2', exact: true }).count(), 0);

    await page.getByRole('combobox', { name: 'Storage targets' }).click();
    await page.getByRole('option', { name: `${targetName} (local_disk)` }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    await page.getByRole('heading', { level: 1, name: taskName }).waitFor();
  });

  await step('run now: the live log finishes with success', async () => {
    await page.getByRole('button', { name: 'Run now' }).click();
    const panel = page.getByTestId('task-run-panel');
    await panel.getByText('Finished', { exact: true }).waitFor({ timeout: 60_000 });
    await panel.getByText('success', { exact: true }).waitFor();
    assert.ok(await panel.getByRole('log').textContent(), 'the log shows lines');
    await screenshot(page, 'first-backup-2-run-finished');
  });

  await step("the record's contents: one file selected and restored into another folder", async () => {
    await page.getByTestId('task-run-panel').getByRole('link', { name: 'Open the record' }).click();
    await page.waitForURL(/\/records\/\d+$/);
    await page.getByRole('heading', { level: 1, name: /^Backup record #\d+$/ }).waitFor();
    const contents = page.getByTestId('contents-browser');
    await contents.getByRole('button', { name: 'Open sub' }).click();
    await contents.getByText('other.txt', { exact: true }).waitFor();
    await contents.getByRole('checkbox', { name: 'Select chosen.bin' }).check();
    await contents.getByRole('button', { name: 'Restore selected (1)' }).click();
    const dialog = page.getByRole('dialog', { name: /^Restore from record #\d+$/ });
    await dialog.getByRole('radio', { name: 'Into another folder' }).check();
    await dialog.getByRole('textbox', { name: 'Destination folder' }).fill(restoreInto);
    await dialog.getByRole('button', { name: 'Start restore' }).click();
    await page.waitForURL(/\/restores\/\d+$/);
    await page.getByRole('heading', { level: 1, name: /^Restore #\d+$/ }).waitFor();
    const log = page.getByTestId('live-log');
    await log.getByText('Finished', { exact: true }).waitFor({ timeout: 60_000 });
    await log.getByText('success', { exact: true }).waitFor();
    await screenshot(page, 'first-backup-3-restored');
  });

  await step('on disk: exactly the chosen file, below its original path, with the same bytes', async () => {
    const restored = await filesBelow(restoreInto);
    const expected = relative('/', join(source, 'sub', 'chosen.bin'));
    assert.deepEqual(restored, [expected]);
    assert.ok((await readFile(join(restoreInto, expected))).equals(chosen), 'restored bytes equal the original');
  });

  await step('log out, and sign in again on the login page', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${base}/login`);
    await signIn(page, base, ADMIN.username, ADMIN.password);
  });

  assert.deepEqual(errors, [], 'no console error or uncaught exception in the pages');
});
