import type { BackupRecord } from '../../db/entities/backup-record.ts';
import type { RecordLogHub } from '../../backup/record-log.ts';
import type { BackupRecordService } from './backup-record-service.ts';
import { copyResult, recordSummary } from './backup-record-view.ts';
import { reportedStatus } from './reported-status.ts';

/**
 * A record's detail: its summary, its log so far and each copy's result. One builder for
 * `GET /api/backup/records/:id` and for the answer to a run trigger, which clients read as the
 * same record detail.
 */
export async function recordDetail(
  { backupRecords, recordLogs }: { backupRecords: BackupRecordService; recordLogs: RecordLogHub },
  record: BackupRecord,
) {
  const copies = (await backupRecords.copies([record.id])).get(record.id) ?? [];
  const logEvents = await recordLogs.stored(record.id, 0, reportedStatus(record.status));
  return {
    ...recordSummary(record, copies, recordLogs.lastProgress(record.id)),
    logContent: await recordLogs.content(record.id),
    logEvents,
    storageUploadResults: copies.map(copyResult),
  };
}
