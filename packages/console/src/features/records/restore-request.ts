/**
 * The restore dialog's choices as the body of POST /api/backup/records/{id}/restore
 * ({targetPath?, targetDatabase?, selectedPaths?, databases?}: core/features/recovery/recovery-schemas.ts).
 * Pure: tested in test/console/records-restore-request.test.ts.
 */
import { MAX_SELECTED_PATHS } from './contents-selection.ts';

export interface RestoreChoices {
  /** File records: back where they came from, or under another folder. */
  destination: 'original' | 'folder';
  targetPath: string;
  /** Database records: empty = the task's database. */
  targetDatabase: string;
  /** Several-database records: the databases to restore; empty = all. */
  databases: readonly string[];
}

export interface RestoreBody {
  targetPath?: string;
  targetDatabase?: string;
  selectedPaths?: string[];
  databases?: string[];
}

export type RestoreProblem = 'targetPathRequired' | 'targetPathNotAbsolute' | 'tooManyPaths' | 'oneDatabaseForTarget';

export interface RestoreTarget {
  kind: 'file' | 'database';
  /** Several databases in one artifact. */
  severalDatabases: boolean;
  /** Total databases in the artifact, when known (choosing all of them sends none: all). */
  databaseCount?: number;
}

/** The request body, or why it cannot be sent. `selectedPaths` empty = the whole archive. */
export function restoreRequest(
  target: RestoreTarget,
  c: RestoreChoices,
  selectedPaths: readonly string[],
): { body: RestoreBody } | { problem: RestoreProblem } {
  if (target.kind === 'file') {
    const body: RestoreBody = {};
    if (c.destination === 'folder') {
      const path = c.targetPath.trim();
      if (path === '') return { problem: 'targetPathRequired' };
      if (!path.startsWith('/')) return { problem: 'targetPathNotAbsolute' };
      body.targetPath = path.length > 1 ? path.replace(/\/+$/, '') : path;
    }
    if (selectedPaths.length > MAX_SELECTED_PATHS) return { problem: 'tooManyPaths' };
    if (selectedPaths.length > 0) body.selectedPaths = [...selectedPaths];
    return { body };
  }
  const body: RestoreBody = {};
  const databases = [...new Set(c.databases)];
  const all = target.databaseCount !== undefined && databases.length >= target.databaseCount;
  if (target.severalDatabases && databases.length > 0 && !all) body.databases = databases;
  const db = c.targetDatabase.trim();
  if (db !== '') {
    if (target.severalDatabases && databases.length !== 1) return { problem: 'oneDatabaseForTarget' };
    body.targetDatabase = db;
    if (target.severalDatabases) body.databases = databases;
  }
  return { body };
}
