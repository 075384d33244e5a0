import type { EVENT_TYPES } from './subscription.ts';

/**
 * One line per event type a channel can subscribe to (docs/notifications.md has the fields of
 * each), for catalogues such as the console's event picker. Typed against EVENT_TYPES: a new
 * event type without a description fails the type check.
 */
export const EVENT_DESCRIPTIONS: Record<(typeof EVENT_TYPES)[number], string> = {
  backup_success: 'A backup succeeded.',
  backup_partial: 'A backup stored its artifact on some of its targets only.',
  backup_failed: "A backup failed (after the task's alertOnConsecutiveFails failures in a row).",
  backup_recovered: 'The first success after a failure alert.',
  backup_cancelled: 'A backup was cancelled.',
  restore_success: 'A restore succeeded.',
  restore_failed: 'A restore failed.',
  restore_cancelled: 'A restore was cancelled.',
  verify_success: 'A verification succeeded.',
  verify_failed: 'A verification failed, or found a corrupt copy.',
  verify_cancelled: 'A verification was cancelled.',
  replication_failed: 'A replication to another target failed.',
  storage_unhealthy: 'The health check found a storage target failing.',
  storage_recovered: 'A storage target works again.',
  storage_capacity_warning: 'A storage target holds 85 % or more of its quota or capacity.',
  node_offline: "A node's agent stopped being heard from.",
  node_online: "A node's agent is back.",
  agent_outdated: 'An agent runs an older version than the master.',
  sla_violation: 'A task has had no successful backup within its RPO.',
  rto_exceeded: "A deep verification measured a restore time above the task's RTO.",
  account_attack: 'An account reached the cap of failed sign-ins in a row and is locked against unknown clients.',
};
