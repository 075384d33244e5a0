import { Migration001Initial } from './001-initial.ts';
import { Migration002StorageTargets } from './002-storage-targets.ts';

/** Applied in this order; a name once shipped never changes. */
export const MIGRATIONS = [
  { name: 'Migration001Initial', class: Migration001Initial },
  { name: 'Migration002StorageTargets', class: Migration002StorageTargets },
];
