import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Backup run metrics on the app's registry (`/metrics`). Labels stay low-cardinality: type, status, trigger. */
export class BackupMetrics {
  readonly runs: Counter<'type' | 'status' | 'trigger'>;
  readonly duration: Histogram<'type' | 'status'>;
  readonly bytes: Counter<'type'>;
  readonly bytesRead: Counter<'type' | 'kind'>;
  readonly bytesAdded: Counter<'type' | 'kind'>;
  readonly running: Gauge;
  readonly queued: Gauge;
  readonly skipped: Counter<'reason'>;
  readonly retentionDeleted: Counter;
  readonly retentionFailures: Counter;

  constructor({ metricsRegistry }: { metricsRegistry: Registry }) {
    const registers = [metricsRegistry];
    this.runs = new Counter({
      name: 'backplane_backup_runs_total',
      help: 'Finished backup runs',
      labelNames: ['type', 'status', 'trigger'],
      registers,
    });
    this.duration = new Histogram({
      name: 'backplane_backup_duration_seconds',
      help: 'Backup run wall time',
      labelNames: ['type', 'status'],
      buckets: [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 7200, 21600],
      registers,
    });
    this.bytes = new Counter({
      name: 'backplane_backup_bytes_total',
      help: 'Stored bytes written by successful or partial runs (once per artifact)',
      labelNames: ['type'],
      registers,
    });
    // What a run read against what it added to storage: the ratio is what differentials and
    // repositories save (rate(read) / rate(added) per kind; docs/repositories.md).
    this.bytesRead = new Counter({
      name: 'backplane_backup_source_bytes_total',
      help: 'Bytes successful or partial runs read from their source, by backup kind (full, differential, repository)',
      labelNames: ['type', 'kind'],
      registers,
    });
    this.bytesAdded = new Counter({
      name: 'backplane_backup_added_bytes_total',
      help: 'Bytes successful or partial runs added to storage (a repository run: after deduplication), by backup kind',
      labelNames: ['type', 'kind'],
      registers,
    });
    this.running = new Gauge({
      name: 'backplane_backups_running',
      help: 'Backup runs in progress (on the master and on agents)',
      registers,
    });
    this.queued = new Gauge({ name: 'backplane_backups_queued', help: 'Backup runs waiting for a slot', registers });
    this.skipped = new Counter({
      name: 'backplane_backup_runs_skipped_total',
      help: 'Scheduled runs that did not start',
      labelNames: ['reason'],
      registers,
    });
    this.retentionDeleted = new Counter({
      name: 'backplane_retention_deleted_total',
      help: 'Records removed by retention',
      registers,
    });
    this.retentionFailures = new Counter({
      name: 'backplane_retention_delete_failures_total',
      help: 'Artifact deletions that failed and will be retried',
      registers,
    });
  }
}
