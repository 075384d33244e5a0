import { Migration001Initial } from './001-initial.ts';

/** Applied in this order; a name once shipped never changes. */
export const MIGRATIONS = [{ name: 'Migration001Initial', class: Migration001Initial }];
