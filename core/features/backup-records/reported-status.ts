import type { RecordStatus } from '../../db/entities/backup-record.ts';

/**
 * The `status` a record shows, and the precise `state` beside it.
 *
 * BackupX has no queue: a run is `running` from the moment it is triggered. Its console
 * starts following the live log only for `running`. A queued Backplane run therefore shows
 * as `running`, so those clients follow it from the start, and `state` says `queued`.
 * `partial` and `cancelled` stay as they are. Reporting a partial run as success would claim
 * copies that do not exist, and reporting a cancelled run as failed would hide who stopped it.
 * BackupX's console shows both as plain tags (docs/api-decisions.md).
 */
export function reportedStatus(state: RecordStatus): Exclude<RecordStatus, 'queued'> {
  return state === 'queued' ? 'running' : state;
}

/** A `status` filter in either vocabulary: `running` finds what shows as running, queued runs included. */
export function statusWhere(status: RecordStatus | undefined): RecordStatus | { $in: RecordStatus[] } | undefined {
  return status === 'running' ? { $in: ['queued', 'running'] } : status;
}
