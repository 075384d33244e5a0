import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, screenshot } from '../helpers/browser.ts';
import { apiOk, setupAdminApi, startConsoleMaster, waitForH1 } from '../helpers/console.ts';
import { startProvider } from '../helpers/oidc-provider.ts';

/**
 * The console's single sign-on in Chromium against a real OpenID provider (oidc-provider in this
 * process): the login page's button, the provider's pages, the master's callback, /login/sso and
 * a session kept as a password login keeps it.
 */
test('the console signs in with a provider: "Sign in with <name>", the provider, /login/sso, the dashboard', {
  timeout: 180_000,
}, async (t) => {
  const idp = await startProvider(t);
  const server = await startConsoleMaster(t, {
    env: {
      BACKPLANE_OIDC_PROVIDERS: JSON.stringify([
        {
          name: 'corp',
          displayName: 'Corp ID',
          issuer: idp.issuer,
          clientId: 'backplane',
          clientSecret: 'backplane-client-secret',
          scopes: ['openid', 'email', 'profile', 'groups'],
          autoProvision: true,
          roleClaim: 'groups',
          roleMap: { ops: 'operator' },
        },
      ]),
    },
  });
  // No external URL: the redirect URI is the master's own address, as the browser reaches it.
  await idp.serve([
    {
      client_id: 'backplane',
      client_secret: 'backplane-client-secret',
      redirect_uris: [`${server.url}/api/auth/oidc/corp/callback`],
    },
  ]);
  idp.accounts.set('olga-sub', { preferred_username: 'olga', name: 'Olga', groups: ['ops'] });
  idp.signIn = { accountId: 'olga-sub', amr: ['pwd'] };
  const admin = await setupAdminApi(server.url);

  const { page, errors } = await openBrowser(t);
  await page.goto(`${server.url}/login`);
  await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
  await page.waitForURL(`${server.url}/`);
  await waitForH1(page);
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('backplane.session') ?? 'null'));
  assert.equal(stored?.user?.username, 'olga');
  assert.equal(stored?.user?.role, 'operator');
  await screenshot(page, 'sso-signed-in');
  const users = await apiOk(server.url, 'GET', admin, '/api/users');
  assert.ok(
    users.some((u: { username: string }) => u.username === 'olga'),
    'the account was provisioned',
  );

  // A failed sign-in comes back to the same page with the reason.
  idp.accounts.set('olga-sub', { preferred_username: 'olga', groups: ['staff'] });
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${server.url}/login`);
  await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
  await page.waitForURL(/\/login\/sso\?error=AUTH_OIDC_NO_ROLE$/);
  await page.getByRole('alert').getByText('give you no access here').waitFor();
  await screenshot(page, 'sso-refused');
  assert.deepEqual(errors, [], 'the pages logged no error');
});
