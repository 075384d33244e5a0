import type { BackupTask } from '../db/entities/backup-task.ts';
import type { SourceSpec } from '../engine/index.ts';

/** Associated data of a task's sealed database password: the task service seals it, every run opens it. */
export const DB_PASSWORD_AAD = 'backup_tasks.db_password';

/** What a run of a stored task reads, as the run kernel takes it (the master builds it, an agent receives it). */
export function sourceSpecOf(task: BackupTask): SourceSpec {
  return {
    type: task.type,
    sourcePaths: JSON.parse(task.sourcePaths) as string[],
    excludePatterns: JSON.parse(task.excludePatterns) as string[],
    dbHost: task.dbHost,
    dbPort: task.dbPort,
    dbUser: task.dbUser,
    dbName: task.dbName,
    dbPath: task.dbPath,
  };
}
