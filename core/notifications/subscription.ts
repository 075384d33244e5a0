/** What decides whether a channel receives an event. */
export interface Subscriber {
  enabled: boolean;
  onSuccess: boolean;
  onFailure: boolean;
  eventTypes: string[];
}

/** Backup results the legacy rule (no `eventTypes`) routes by `onSuccess` / `onFailure`. */
const SUCCESSES = new Set(['backup_success']);
const FAILURES = new Set(['backup_failed', 'backup_partial']);
/** A success that closes a failure alert: it goes wherever either half would. */
const RECOVERY = 'backup_recovered';

/**
 * The reference's rule, extended: a channel with `eventTypes` receives exactly those (a
 * recovery also reaches a channel that lists `backup_success` or `backup_failed`); without,
 * `onSuccess` takes successful backups, `onFailure` failed and partial ones, and either takes
 * the recovery after a failure alert.
 */
export function subscribes(channel: Subscriber, type: string): boolean {
  if (!channel.enabled) return false;
  if (channel.eventTypes.length > 0) {
    if (channel.eventTypes.includes(type)) return true;
    return (
      type === RECOVERY &&
      (channel.eventTypes.includes('backup_success') || channel.eventTypes.includes('backup_failed'))
    );
  }
  if (SUCCESSES.has(type)) return channel.onSuccess;
  if (FAILURES.has(type)) return channel.onFailure;
  if (type === RECOVERY) return channel.onSuccess || channel.onFailure;
  return false;
}

/** Every event type Backplane raises, for validation of `eventTypes` and for catalogues. */
export const EVENT_TYPES = [
  'backup_success',
  'backup_partial',
  'backup_failed',
  'backup_recovered',
  'backup_cancelled',
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
  'node_offline',
  'node_online',
  'agent_outdated',
  'sla_violation',
  'rto_exceeded',
  'account_attack',
] as const;
