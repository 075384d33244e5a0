import { Counter, Histogram, type Registry } from 'prom-client';

type Kind = 'restore' | 'verify' | 'replication';
const BUCKETS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 7200, 21600];

/**
 * Finished restores, verifications and replications (the reference's `*_run_total`, with
 * durations), counted where each run ends, on the master and for agents alike.
 */
export class RecoveryMetrics {
  readonly #runs: Record<Kind, Counter<string>>;
  readonly #duration: Record<Kind, Histogram<string>>;

  constructor({ metricsRegistry }: { metricsRegistry: Registry }) {
    const registers = [metricsRegistry];
    this.#runs = {
      restore: new Counter({
        name: 'backplane_restore_runs_total',
        help: 'Finished restores',
        labelNames: ['status'],
        registers,
      }),
      verify: new Counter({
        name: 'backplane_verify_runs_total',
        help: 'Finished verifications',
        labelNames: ['mode', 'status'],
        registers,
      }),
      replication: new Counter({
        name: 'backplane_replication_runs_total',
        help: 'Finished replications',
        labelNames: ['status'],
        registers,
      }),
    };
    this.#duration = {
      restore: new Histogram({
        name: 'backplane_restore_duration_seconds',
        help: 'Restore wall time',
        labelNames: ['status'],
        buckets: BUCKETS,
        registers,
      }),
      verify: new Histogram({
        name: 'backplane_verify_duration_seconds',
        help: 'Verification wall time',
        labelNames: ['mode', 'status'],
        buckets: BUCKETS,
        registers,
      }),
      replication: new Histogram({
        name: 'backplane_replication_duration_seconds',
        help: 'Replication wall time',
        labelNames: ['status'],
        buckets: BUCKETS,
        registers,
      }),
    };
  }

  /** One finished run: its status, its mode for a verification, its wall time. */
  observe(kind: Kind, record: { status: string; durationMs: number; mode?: string }): void {
    const labels: Record<string, string> =
      kind === 'verify' ? { mode: record.mode ?? 'quick', status: record.status } : { status: record.status };
    this.#runs[kind].inc(labels);
    this.#duration[kind].observe(labels, record.durationMs / 1000);
  }
}
