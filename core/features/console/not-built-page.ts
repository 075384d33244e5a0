/** The build command, as the page, the log and docs/operations.md name it. */
export const BUILD_COMMAND = 'npm run build -w @backplane/console';

/** What a browser sees at the console's address when the console was not built (`npm install --ignore-scripts`). */
export const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Backplane: console not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#eee;padding:.1rem .3rem}</style>
</head>
<body>
<h1>The web console is not built</h1>
<p>This Backplane master serves its API, but the web console was not built on this machine.
Build it in the installation's folder, then restart the master:</p>
<p><code>${BUILD_COMMAND}</code></p>
<p>The API is described at <a href="/api/docs">/api/docs</a>.</p>
</body>
</html>
`;
