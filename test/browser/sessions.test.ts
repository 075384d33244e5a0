import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, screenshot } from '../helpers/browser.ts';
import { ADMIN, setupAdminApi, signIn, startConsoleMaster, stepper, waitForH1 } from '../helpers/console.ts';

/** The account page's sessions: the admin sees where they are signed in and signs other sessions out. */
test('the account page lists the sessions; one is signed out by its labelled button, the rest by "Sign out everywhere else"', {
  timeout: 180_000,
}, async (t) => {
  const server = await startConsoleMaster(t);
  const base = server.url;
  await setupAdminApi(base);
  const viaApi = async (userAgent: string) => {
    const res = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent },
      body: JSON.stringify(ADMIN),
    });
    return ((await res.json()) as { data: { token: string } }).data.token;
  };
  const profileStatus = async (token: string) =>
    (await fetch(`${base}/api/auth/profile`, { headers: { authorization: `Bearer ${token}` } })).status;
  const script = await viaApi('curl/8.5.0');
  const phone = await viaApi('Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Safari/604.1');

  const { page, errors } = await openBrowser(t);
  page.on('dialog', (dialog) => void dialog.accept());
  const step = stepper(page, 'sessions');
  await step('sign in and open the account page', async () => {
    await signIn(page, base, ADMIN.username, ADMIN.password);
    await page.goto(`${base}/account`);
    await waitForH1(page, 'Account security');
  });
  const section = page.getByRole('region', { name: 'Sessions' });

  await step('four sessions (setup, the script, the phone, this browser), this one marked', async () => {
    await section.getByRole('row').nth(4).waitFor();
    assert.equal(await section.getByRole('row').count(), 5, 'a header row and four sessions');
    assert.equal(await section.getByText('this session').count(), 1);
    await screenshot(page, 'account-sessions');
  });

  await step('sign out the phone by its button', async () => {
    await section.getByRole('button', { name: /^Sign out the session of Safari on iPhone from / }).click();
    await page.getByText('Session signed out.').waitFor();
    assert.equal(await profileStatus(phone), 401);
    assert.equal(await profileStatus(script), 200);
  });

  await step('sign out everywhere else', async () => {
    await section.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.getByText('2 other sessions signed out.').waitFor();
    assert.equal(await profileStatus(script), 401);
    await section.getByText('You are signed in nowhere else.').waitFor();
    // The console's own session goes on.
    await page.reload();
    await waitForH1(page, 'Account security');
  });
  assert.deepEqual(errors, [], 'no console error or uncaught exception');
});
