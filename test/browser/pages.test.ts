import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers/build.ts';
import { openBrowser, screenshot } from '../helpers/browser.ts';
import { ADMIN, setupAdminApi, signIn, startConsoleMaster, stepper, waitForH1 } from '../helpers/console.ts';
import { seedConsoleData, type ConsoleData } from '../helpers/console-seed.ts';

interface ConsolePage {
  /** Screenshot name: <area>-<page>. */
  name: string;
  path: string;
  /** The page's h1 (substring, case-insensitive). */
  h1: string;
  /** Something that shows only once the page's data arrived, so the screenshot is of the page, not of a loader. */
  shows: string | RegExp;
  /** `shows` is in a dialog (a portal outside the page's main element). */
  inDialog?: true;
}

/** Every page of the console (lists, details, create and edit forms), as the admin sees them with data. */
function everyPage(d: ConsoleData): ConsolePage[] {
  return [
    { name: 'dashboard-home', path: '/', h1: 'Dashboard', shows: 'Home folder' },
    { name: 'tasks-list', path: '/tasks', h1: 'Backup tasks', shows: 'Home folder' },
    { name: 'tasks-new', path: '/tasks/new', h1: 'New backup task', shows: 'Source paths' },
    { name: 'tasks-detail', path: `/tasks/${d.taskId}`, h1: 'Home folder', shows: 'Recent records' },
    { name: 'tasks-edit', path: `/tasks/${d.taskId}/edit`, h1: 'Edit Home folder', shows: 'Source paths' },
    { name: 'records-list', path: '/records', h1: 'Backup records', shows: 'Home folder' },
    { name: 'records-detail', path: `/records/${d.recordId}`, h1: `Backup record #${d.recordId}`, shows: 'a.txt' },
    {
      name: 'records-detail-repository',
      path: `/records/${d.repositoryRecordId}`,
      h1: `Backup record #${d.repositoryRecordId}`,
      shows: /restic snapshot [0-9a-f]{8}/,
    },
    { name: 'restores-list', path: '/restores', h1: 'Restores', shows: 'Home folder' },
    { name: 'restores-detail', path: `/restores/${d.restoreId}`, h1: `Restore #${d.restoreId}`, shows: 'Finished' },
    { name: 'verifications-list', path: '/verifications', h1: 'Verifications', shows: 'Home folder' },
    {
      name: 'verifications-detail',
      path: `/verifications/${d.verificationId}`,
      h1: `Verification #${d.verificationId}`,
      shows: 'Finished',
    },
    { name: 'replications-list', path: '/replications', h1: 'Replications', shows: 'Home folder' },
    {
      name: 'replications-detail',
      path: `/replications/${d.replicationId}`,
      h1: `Replication #${d.replicationId}`,
      shows: 'Second disk',
    },
    { name: 'templates-list', path: '/templates', h1: 'Task templates', shows: 'Nightly files' },
    { name: 'templates-new', path: '/templates/new', h1: 'New task template', shows: /./ },
    { name: 'templates-detail', path: `/templates/${d.templateId}`, h1: 'Nightly files', shows: 'Files every night' },
    { name: 'templates-edit', path: `/templates/${d.templateId}/edit`, h1: 'Edit template: Nightly files', shows: /./ },
    { name: 'targets-list', path: '/targets', h1: 'Storage targets', shows: 'Primary disk' },
    { name: 'targets-new', path: '/targets/new', h1: 'New storage target', shows: 'Local disk' },
    {
      name: 'targets-new-local-disk',
      path: '/targets/new?type=local_disk',
      h1: 'New storage target',
      shows: 'Base path',
    },
    { name: 'targets-detail', path: `/targets/${d.targetId}`, h1: 'Primary disk', shows: 'Usage' },
    {
      name: 'targets-google-callback',
      path: '/targets/google-drive/callback',
      h1: 'Connect Google Drive',
      shows: /start the authorisation again/i,
    },
    { name: 'nodes-list', path: '/nodes', h1: 'Nodes', shows: 'db-02' },
    { name: 'nodes-new', path: '/nodes/new', h1: 'Nodes', shows: 'Create node and installer', inDialog: true },
    { name: 'nodes-detail', path: `/nodes/${d.nodeId}`, h1: 'db-02', shows: 'Overview' },
    { name: 'nodes-detail-master', path: '/nodes/1', h1: '', shows: 'Overview' },
    { name: 'notifications-list', path: '/notifications', h1: 'Notification channels', shows: 'Ops webhook' },
    { name: 'notifications-new', path: '/notifications/new', h1: 'New notification channel', shows: /./ },
    { name: 'notifications-detail', path: `/notifications/${d.channelId}`, h1: 'Ops webhook', shows: /deliver/i },
    { name: 'reports-compliance', path: '/reports/compliance', h1: 'Compliance report', shows: 'Home folder' },
    { name: 'audit-list', path: '/audit', h1: 'Audit log', shows: 'Primary disk' },
    { name: 'users-list', path: '/users', h1: 'Users', shows: 'olivia' },
    { name: 'apikeys-list', path: '/api-keys', h1: 'API keys', shows: 'ci-pipeline' },
    { name: 'settings-all', path: '/settings', h1: 'Settings', shows: /./ },
    { name: 'account-security', path: '/account', h1: 'Account security', shows: 'Change password' },
    { name: 'app-not-found', path: '/no-such-page', h1: 'Page not found', shows: 'There is no page at this address.' },
  ];
}

test('every console page renders its h1 without a page error, with a screenshot of each; the narrow layout opens its navigation from the burger', async (t) => {
  const work = await tempDir(t, 'backplane-browser-pages-');
  const server = await startConsoleMaster(t, { fsRoot: work });
  const base = server.url;
  const adminToken = await setupAdminApi(base);
  const data = await seedConsoleData(t, base, adminToken, work);
  const { page, errors } = await openBrowser(t);
  const step = stepper(page, 'pages');

  await step('the login page', async () => {
    await page.goto(`${base}/`);
    await page.waitForURL(`${base}/login`);
    await waitForH1(page, 'Sign in to Backplane');
    await screenshot(page, 'auth-login');
    await signIn(page, base, ADMIN.username, ADMIN.password);
  });

  const failures: string[] = [];
  for (const p of everyPage(data)) {
    await step(p.name, async () => {
      const before = errors.length;
      await page.goto(`${base}${p.path}`);
      await waitForH1(page, p.h1 || undefined);
      await page
        .getByRole(p.inDialog ? 'dialog' : 'main')
        .getByText(p.shows)
        .first()
        .waitFor();
      await screenshot(page, p.name);
      // Every page is visited even when one logs an error; the test then names them all.
      for (const e of errors.slice(before)) failures.push(`${p.path}: ${e}`);
    });
  }
  assert.deepEqual(failures, [], 'no console error or uncaught exception on any page');

  await step('narrow screen (390x844): the navigation is a drawer the burger opens', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const narrow: { name: string; path: string; h1: string; shows: string }[] = [
      { name: 'narrow-dashboard', path: '/', h1: 'Dashboard', shows: 'Home folder' },
      { name: 'narrow-tasks-list', path: '/tasks', h1: 'Backup tasks', shows: 'Home folder' },
      { name: 'narrow-tasks-new', path: '/tasks/new', h1: 'New backup task', shows: 'Source paths' },
      {
        name: 'narrow-records-detail',
        path: `/records/${data.recordId}`,
        h1: `Backup record #${data.recordId}`,
        shows: 'a.txt',
      },
    ];
    for (const p of narrow) {
      await page.goto(`${base}${p.path}`);
      await waitForH1(page, p.h1);
      await page.getByRole('main').getByText(p.shows).first().waitFor();
      await screenshot(page, p.name);
    }
    // On the last page: the navigation is off screen, and out of the accessibility tree, until the
    // burger opens it; a link closes it again. (It slides: open means all in view, closed all out
    // of it, so no screenshot is of the slide.)
    const drawer = page.locator('nav[aria-label="Main navigation"]');
    const navHandle = await drawer.elementHandle();
    const onScreen = (open: boolean) =>
      page.waitForFunction(
        ([el, want]) => {
          const box = el!.getBoundingClientRect();
          return want ? box.left >= 0 : box.right <= 0;
        },
        [navHandle, open] as const,
      );
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await onScreen(false);
    assert.equal(await nav.count(), 0, 'the closed drawer is hidden from assistive technology');
    assert.equal(await drawer.getAttribute('inert'), '', 'the closed drawer is out of the tab order');
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await onScreen(true);
    await nav.waitFor();
    await screenshot(page, 'narrow-navigation-open');
    await nav.getByRole('link', { name: 'Storage targets' }).click();
    await page.waitForURL(`${base}/targets`);
    await waitForH1(page, 'Storage targets');
    await onScreen(false);
    await page.getByRole('main').getByText('Primary disk').first().waitFor();
    await screenshot(page, 'narrow-targets-list');
  });

  assert.deepEqual(errors, [], 'no console error or uncaught exception in the pages');
});
