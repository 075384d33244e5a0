import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { rawResponse } from '../../http/schemas.ts';

/** Where Google sends the browser back by default (under the base URL); see `StorageOAuthFlow.start`. */
export const CALLBACK_PAGE_PATH = '/storage-targets/google-drive/callback';

/**
 * Reads `state` and `code` (or `error`) from the address in the browser, never from the server,
 * and writes only with `textContent`: nothing the request carries reaches the markup. The
 * completion URL is relative, so a master behind a path prefix posts to its own API.
 */
const SCRIPT =
  `(function () {
  var params = new URLSearchParams(location.search);
  var state = params.get('state') || '';
  var code = params.get('code') || '';
  var error = params.get('error');
  // The code is a credential: keep it out of the address bar and the history.
  history.replaceState(null, '', location.pathname);
  var status = document.getElementById('status');
  var form = document.getElementById('complete');
  if (error) { status.textContent = 'Google reported: ' + error + '. Start the authorisation again.'; return; }
  if (!state || !code) { status.textContent = 'This page expects state and code from Google. Start the authorisation again.'; return; }
  status.textContent = 'Google granted access. Enter an operator API key or session token to finish.';
  form.hidden = false;
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var credential = document.getElementById('credential').value.trim();
    form.hidden = true;
    status.textContent = 'Connecting...';
    return fetch(new URL('../../api/storage-targets/google-drive/complete', location.href), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + credential },
      body: JSON.stringify({ state: state, code: code })
    }).then(function (res) {
      return res.json().then(function (body) {
        if (res.ok) {` +
  ` status.textContent = 'Google Drive is connected: target "' + body.data.name + '" (id ' + body.data.id + '). You can close this page.'; return; }
        status.textContent = 'Not connected: ' + body.message + ' (' + body.code + ')';
        // A refused credential does not use up the state: let the operator try another.
        if (res.status === 401 || res.status === 403) form.hidden = false;
      });
    }).catch(function (err) { status.textContent = 'Not connected: ' + err.message; form.hidden = false; });
  });
})();`;

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}' +
  'input{width:100%;box-sizing:border-box;padding:.4rem}' +
  'button{margin-top:.6rem;padding:.4rem 1rem}';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export const CALLBACK_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Backplane: connect Google Drive</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Connect Google Drive</h1>
<p id="status">Reading Google's answer...</p>
<form id="complete" hidden>
<label for="credential">Operator API key or session token</label>
<input id="credential" type="password" autocomplete="off" required>
<button type="submit">Connect</button>
</form>
<script>${SCRIPT}</script>
</body>
</html>
`;

/** Only the page's own script and style run; it may call its own origin and nothing else. */
export const CALLBACK_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The default Google Drive redirect target, a page and not an API route: Google sends the
 * browser here with `state` and `code`, and the page posts them to
 * `POST /api/storage-targets/google-drive/complete` with the credential the operator enters.
 * Public (a browser arriving from Google carries no credential); it is static, so it answers
 * the same whatever the request holds.
 */
export async function oauthCallbackPage(app: FastifyInstance): Promise<void> {
  app.get(
    CALLBACK_PAGE_PATH,
    {
      config: { access: 'public' },
      schema: {
        response: { 200: rawResponse('The page that completes the authorisation in the browser', ['text/html']) },
      },
    },
    async (_request, reply) => {
      void reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', CALLBACK_PAGE_CSP)
        .header('cache-control', 'no-store')
        // The address held the code until the script removed it: never pass it on as a Referer.
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff');
      return CALLBACK_PAGE_HTML;
    },
  );
}
