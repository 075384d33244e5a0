import type { NotificationSeverity } from '@backplane/plugin-api';

export type AlertFields = Record<string, string | number | boolean | null>;

/** Something to tell people about: what SSE clients see and what notification channels receive. */
export interface Alert {
  /** Stable event type (docs/notifications.md lists them). */
  type: string;
  /** Defaults from the type (`SEVERITIES`), else `info`. */
  severity?: NotificationSeverity;
  /** What it is about (`task:5`, `storage:2`, `node:3`): coalescing and once-per-period rules key on it. */
  subject?: string;
  title: string;
  body: string;
  fields: AlertFields;
  /** A path under the external URL that shows the subject (`/api/backup/records/12`). */
  linkPath?: string;
}

/** The severity of each event type that has one; others are `info`. */
const SEVERITIES: Record<string, NotificationSeverity> = {
  backup_success: 'success',
  backup_recovered: 'success',
  restore_success: 'success',
  verify_success: 'success',
  storage_recovered: 'success',
  node_online: 'success',
  backup_partial: 'warning',
  storage_capacity_warning: 'warning',
  agent_outdated: 'warning',
  sla_violation: 'warning',
  rto_exceeded: 'warning',
  backup_failed: 'error',
  restore_failed: 'error',
  verify_failed: 'error',
  replication_failed: 'error',
  storage_unhealthy: 'error',
  node_offline: 'error',
  account_attack: 'error',
};

export function severityOf(alert: Pick<Alert, 'type' | 'severity'>): NotificationSeverity {
  return alert.severity ?? SEVERITIES[alert.type] ?? 'info';
}
