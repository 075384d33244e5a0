import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers/build.ts';
import { openBrowser, screenshot } from '../helpers/browser.ts';
import { startAgent, waitFor } from '../helpers/agent-process.ts';
import { api } from '../helpers/server-process.ts';
import { ADMIN, setupAdminApi, signIn, startConsoleMaster, stepper } from '../helpers/console.ts';

/**
 * Add node: the console shows a one-time install command; copied from the page (its copy button),
 * it names the master's /install/<token>, which serves a script that enrolls with a one-time code.
 * The node token the dialog shows starts a real agent, which the nodes list then shows online.
 */
test('adding a node shows an install command that works, and a token a real agent comes online with', async (t) => {
  const server = await startConsoleMaster(t);
  const base = server.url;
  const adminToken = await setupAdminApi(base);
  const { context, page, errors } = await openBrowser(t);
  const step = stepper(page, 'nodes');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await signIn(page, base, ADMIN.username, ADMIN.password);

  const nodeName = 'web-01';
  let command = '';
  let nodeToken = '';
  let code: string | undefined;
  await step('add node: the dialog shows the install command and the node token', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Nodes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Nodes' }).waitFor();
    await page.getByRole('button', { name: 'Add node' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add node' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(nodeName);
    await dialog.getByRole('button', { name: 'Create node and installer' }).click();
    await dialog.getByText(`Node "${nodeName}" created`).waitFor();
    const shown = (await dialog.getByTestId('install-command-text').textContent()) ?? '';
    await dialog.getByRole('button', { name: 'Copy: Run as root on the node' }).click();
    // A string: the root tsconfig has no DOM types.
    command = String(await page.evaluate('navigator.clipboard.readText()'));
    assert.equal(command, shown, 'the copy button copies the command shown');
    await dialog.getByRole('button', { name: 'Run the agent by hand' }).click();
    nodeToken = ((await dialog.getByTestId('node-token').textContent()) ?? '').trim();
    assert.ok(nodeToken.length > 20, 'a node token is shown');
    await screenshot(page, 'nodes-add-installer');
  });

  await step(
    "the command fetches the master's one-time /install/<token> script, which enrolls with a code",
    async () => {
      const match = /^curl -fsSL '?(\S+?)'? \| sh$/.exec(command);
      assert.ok(match, `a curl … | sh command: ${command}`);
      const installUrl = new URL(match[1]!);
      assert.equal(installUrl.origin, base, "the install URL is the master's");
      assert.match(installUrl.pathname, /^\/install\/[^/]+$/);
      const res = await fetch(installUrl);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      const script = await res.text();
      assert.match(script, /^#!\/bin\/sh/);
      code = /^ENROLL_CODE='([^']+)'$/m.exec(script)?.[1];
      assert.ok(code, 'the script carries a one-time enrollment code');
      assert.ok(script.includes('/api/install/enroll'), 'the script exchanges the code at the master');
      assert.ok(!script.includes(nodeToken), 'the script never carries the node token');
      // Once only: the link is used up.
      assert.notEqual((await fetch(installUrl)).status, 200, 'a second fetch of the installer is refused');
    },
  );

  await step("a real agent with the token comes online in the console's node list", async () => {
    await page.getByRole('dialog', { name: 'Add node' }).getByRole('button', { name: 'Done' }).click();
    const agent = await startAgent({
      master: base,
      token: nodeToken,
      dir: await tempDir(t, 'backplane-browser-agent-'),
    });
    t.after(() => agent.stop());
    const nodes = async () =>
      (await api(`${base}/api/nodes`, 'GET', adminToken)).body.data as { name: string; status: string }[];
    await waitFor(
      'the agent online',
      async () => ((await nodes()).find((n) => n.name === nodeName)?.status === 'online' ? true : undefined),
      30_000,
    );
    // The list refreshes by itself every 15 s; a reload shows it at once.
    await page.reload();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: nodeName, exact: true }) });
    await row.getByText('online', { exact: true }).waitFor();
    await screenshot(page, 'nodes-agent-online');
  });

  await step("the script's enrollment code is good for this node, once (what the script does next)", async () => {
    const enrolled = await api(`${base}/api/install/enroll`, 'POST', undefined, { code });
    assert.equal(enrolled.status, 200, JSON.stringify(enrolled.body));
    assert.ok(enrolled.body.data.token, 'enrollment answers a node token');
    assert.equal(enrolled.body.data.nodeName, nodeName);
    assert.notEqual(
      (await api(`${base}/api/install/enroll`, 'POST', undefined, { code })).status,
      200,
      'the code works once',
    );
  });

  assert.deepEqual(errors, [], 'no console error or uncaught exception in the pages');
});
