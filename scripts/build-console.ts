// `npm install`'s prepare step: builds the web console (packages/console → dist) so the master
// serves it at `/`. An install without dev dependencies (`npm ci --omit=dev`, as the Docker image's
// runtime stage does) has no Vite: then the build is skipped with a notice, and the master answers
// `/` with a page saying how to build it; the API works either way. A failing build fails the install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'node_modules', 'vite', 'package.json'))) {
  console.log(
    'backplane: the web console is not built (no Vite: dev dependencies were omitted). Build it with `npm run build -w @backplane/console`.',
  );
  process.exit(0);
}
const result = spawnSync('npm', ['run', 'build', '-w', '@backplane/console'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
