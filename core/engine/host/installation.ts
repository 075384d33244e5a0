import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Root of the installation: where the root package.json and `plugins/` live. */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** The running version, from the installation's package.json. */
export const VERSION: string = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
