// The entry of @backplane/plugin-testkit: the TypeScript source inside the Backplane repository,
// the compiled dist/ in a published copy (see @backplane/plugin-api's index.js for why).
import { existsSync } from 'node:fs';

const source = new URL('./src/index.ts', import.meta.url);
const kit = await import(existsSync(source) ? source.href : './dist/index.js');

// Every value export of src/index.ts (test/plugin-kit/entries.test.ts checks the list is complete).
export const {
  runStorageContract,
  RSS_GROWTH_LIMIT,
  runDatabaseContract,
  contractDataset,
  smallDataset,
  closedPort,
  runNotifierContract,
  contractMessage,
  registerPlugin,
} = kit;
