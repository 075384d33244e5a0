import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { tempDir } from '../helpers/build.ts';
import { openBrowser } from '../helpers/browser.ts';
import { ADMIN, apiOk, setupAdminApi, signIn, startConsoleMaster, stepper, waitForH1 } from '../helpers/console.ts';
import { seedConsoleData } from '../helpers/console-seed.ts';

/**
 * What a write control is called: the first word of any button or link that creates, changes,
 * starts or removes something. The one list every page is checked against (case-insensitive).
 */
const WRITE_WORDS = [
  'create',
  'new',
  'add',
  'edit',
  'delete',
  'remove',
  'run',
  'test',
  'restore',
  'save',
  'rotate',
  'enable',
  'disable',
  'lock',
  'unlock',
  'verify',
  'replicate',
  'import',
  'apply',
  'cancel',
  'revoke',
  'reset',
  'star',
  'unstar',
  'connect',
  'authorise',
];
const WRITE_NAME = new RegExp(`^\\s*(${WRITE_WORDS.join('|')})\\b`, 'i');
/** Names that start like a write but only change what the page shows (the audit log's filter bar). */
const VIEW_CONTROLS = /^(apply filters|reset|clear filters)$/i;
/** Controls a write could hide behind; switches too (a task's enabled toggle). */
const ROLES = ['button', 'link', 'switch', 'menuitem'] as const;
/** Navigation entries only an admin sees. */
const ADMIN_NAV = ['Users', 'API keys'];

/** The visible controls on the page whose name reads as a write, as "role: name". */
async function writeControls(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const role of ROLES) {
    for (const control of await page.getByRole(role, { name: WRITE_NAME }).all()) {
      const name = (await control.getAttribute('aria-label')) ?? (await control.innerText()).trim();
      if (!VIEW_CONTROLS.test(name)) found.push(`${role}: ${name}`);
    }
  }
  return found;
}

test('a viewer sees every page with data and no write button, and no admin-only navigation', async (t) => {
  const work = await tempDir(t, 'backplane-browser-viewer-');
  const server = await startConsoleMaster(t, { fsRoot: work });
  const base = server.url;
  const adminToken = await setupAdminApi(base);
  const data = await seedConsoleData(t, base, adminToken, work);
  const viewer = { username: 'vera', password: 'vera-password-1' };
  await apiOk(base, 'POST', adminToken, '/api/users', { ...viewer, role: 'viewer' });

  const { page, errors } = await openBrowser(t);
  const step = stepper(page, 'viewer');
  await signIn(page, base, viewer.username, viewer.password);

  /**
   * Each page with something its data makes appear (so the check runs on the rendered page,
   * not on a loader): its h1, and a text that only shows once the page's data arrived.
   */
  const pages: { path: string; h1: string | RegExp; shows: string | RegExp; writesAllowed?: true }[] = [
    { path: '/', h1: 'Dashboard', shows: 'Home folder' },
    { path: '/tasks', h1: 'Backup tasks', shows: 'Home folder' },
    { path: `/tasks/${data.taskId}`, h1: 'Home folder', shows: 'Recent records' },
    { path: '/records', h1: 'Backup records', shows: 'Home folder' },
    { path: `/records/${data.recordId}`, h1: `Backup record #${data.recordId}`, shows: 'Contents' },
    { path: '/restores', h1: 'Restores', shows: 'Home folder' },
    { path: `/restores/${data.restoreId}`, h1: `Restore #${data.restoreId}`, shows: 'Finished' },
    { path: '/verifications', h1: 'Verifications', shows: 'Home folder' },
    { path: `/verifications/${data.verificationId}`, h1: `Verification #${data.verificationId}`, shows: 'Finished' },
    { path: '/replications', h1: 'Replications', shows: 'Home folder' },
    { path: `/replications/${data.replicationId}`, h1: `Replication #${data.replicationId}`, shows: 'Second disk' },
    { path: '/targets', h1: 'Storage targets', shows: 'Primary disk' },
    { path: `/targets/${data.targetId}`, h1: 'Primary disk', shows: 'Usage' },
    { path: '/nodes', h1: 'Nodes', shows: 'db-02' },
    { path: `/nodes/${data.nodeId}`, h1: 'db-02', shows: 'Overview' },
    { path: '/notifications', h1: 'Notification channels', shows: 'Ops webhook' },
    { path: `/notifications/${data.channelId}`, h1: 'Ops webhook', shows: /deliver/i },
    { path: '/templates', h1: 'Task templates', shows: 'Nightly files' },
    { path: `/templates/${data.templateId}`, h1: 'Nightly files', shows: 'Files every night' },
    { path: '/audit', h1: 'Audit log', shows: /storage_target|Primary disk/ },
    { path: '/settings', h1: 'Settings', shows: /./ },
    { path: '/reports/compliance', h1: 'Compliance report', shows: 'Home folder' },
    // Account security is the viewer's own: changing their password or adding a passkey is theirs to do.
    { path: '/account', h1: 'Account security', shows: 'vera', writesAllowed: true },
  ];

  for (const p of pages) {
    await step(`viewer on ${p.path}`, async () => {
      await page.goto(`${base}${p.path}`);
      await waitForH1(page, p.h1);
      await page.getByRole('main').getByText(p.shows).first().waitFor();
      const nav = page.getByRole('navigation');
      for (const entry of ADMIN_NAV)
        assert.equal(
          await nav.getByRole('link', { name: entry, exact: true }).count(),
          0,
          `no "${entry}" in the navigation`,
        );
      if (!p.writesAllowed) assert.deepEqual(await writeControls(page), [], `no write control on ${p.path}`);
    });
  }

  await step("admin-only pages are not the viewer's", async () => {
    await page.goto(`${base}/users`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    assert.deepEqual(await writeControls(page), []);
  });

  await step('the same check finds the write controls an admin has (it is no blind check)', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${base}/login`);
    await signIn(page, base, ADMIN.username, ADMIN.password);
    await page.goto(`${base}/tasks/${data.taskId}`);
    await waitForH1(page, 'Home folder');
    await page.getByRole('main').getByText('Recent records').waitFor();
    const found = await writeControls(page);
    for (const expected of ['button: Run now', 'link: Edit', 'button: Delete'])
      assert.ok(found.includes(expected), `${expected} in ${found.join(', ')}`);
    for (const entry of ADMIN_NAV)
      await page.getByRole('navigation').getByRole('link', { name: entry, exact: true }).waitFor();
  });

  assert.deepEqual(errors, [], 'no console error or uncaught exception in the pages');
});
