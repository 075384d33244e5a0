/**
 * Which application events (GET /api/events/stream, `event:` = type) change what the dashboard
 * shows. Run outcomes are published for every run (core/backup/record-outcome.ts); node and SLA
 * events change the cluster and SLA panels. There is no event when a run starts or is queued
 * (see the running-work poll). Pure: unit-tested.
 */
const REFRESHING = new Set([
  'backup_success',
  'backup_partial',
  'backup_failed',
  'backup_cancelled',
  'backup_recovered',
  'node_offline',
  'node_online',
  'agent_outdated',
  'sla_violation',
  'rto_exceeded',
  'restore_success',
  'restore_failed',
  'restore_cancelled',
  'verify_success',
  'verify_failed',
  'verify_cancelled',
  'replication_failed',
  'storage_unhealthy',
  'storage_recovered',
  'storage_capacity_warning',
]);

export function refreshesDashboard(eventType: string | undefined): boolean {
  return eventType !== undefined && REFRESHING.has(eventType);
}

/** Calls `fn` once `waitMs` after the last of a burst of calls (many runs ending together refetch once). */
export function debounce(fn: () => void, waitMs: number): { call: () => void; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    call: () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        fn();
      }, waitMs);
    },
    cancel: () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
