/**
 * A channel's settings besides its type's config, exactly the create body's fields: name, enabled,
 * onSuccess, onFailure, eventTypes, digest, digestTime. Pure: test/console/channel-form.test.ts.
 */

/**
 * The event types a channel may subscribe to (docs/notifications.md, "Events"). The API refuses an
 * unknown one but has no route that lists them, so the list is repeated here; the input also
 * accepts a type not listed, and the server's answer (NOTIFICATION_INVALID) names it.
 */
export const EVENT_TYPES = [
  'backup_success', 'backup_partial', 'backup_failed', 'backup_recovered', 'backup_cancelled',
  'restore_success', 'restore_failed', 'restore_cancelled', 'verify_success', 'verify_failed', 'verify_cancelled', 'replication_failed',
  'storage_unhealthy', 'storage_recovered', 'storage_capacity_warning',
  'node_offline', 'node_online', 'agent_outdated', 'sla_violation', 'rto_exceeded',
] as const;

export interface ChannelCommon {
  name: string;
  enabled: boolean;
  onSuccess: boolean;
  onFailure: boolean;
  eventTypes: string[];
  /** '' sends each event as it happens, 'daily' one digest a day at digestTime. */
  digest: '' | 'daily';
  digestTime: string;
}

/** The server's defaults for a new channel (notification-service.ts create). */
export const NEW_CHANNEL: ChannelCommon = { name: '', enabled: true, onSuccess: false, onFailure: true, eventTypes: [], digest: '', digestTime: '08:00' };

/** A stored channel's settings as the form edits them ('off' is the same as ''). */
export function commonOf(c: { name: string; enabled: boolean; onSuccess: boolean; onFailure: boolean; eventTypes: string[]; digest: string; digestTime: string }): ChannelCommon {
  return {
    name: c.name, enabled: c.enabled, onSuccess: c.onSuccess, onFailure: c.onFailure, eventTypes: [...c.eventTypes],
    digest: c.digest === 'daily' ? 'daily' : '', digestTime: c.digestTime || NEW_CHANNEL.digestTime,
  };
}

export type CommonError = 'required' | 'tooLong' | 'time';

export function validateCommon(c: ChannelCommon): Partial<Record<keyof ChannelCommon, CommonError>> {
  const errors: Partial<Record<keyof ChannelCommon, CommonError>> = {};
  if (c.name.trim() === '') errors.name = 'required';
  else if (c.name.trim().length > 100) errors.name = 'tooLong';
  if (!/^([01][0-9]|2[0-3]):[0-5][0-9]$/.test(c.digestTime)) errors.digestTime = 'time';
  return errors;
}

/**
 * Who receives what, in words the form shows: with event types the channel takes exactly those;
 * without, BackupX's rule (onSuccess: backup_success; onFailure: backup_failed, backup_partial).
 */
export function effectiveEvents(c: Pick<ChannelCommon, 'eventTypes' | 'onSuccess' | 'onFailure'>): string[] {
  if (c.eventTypes.length > 0) return [...new Set(c.eventTypes)];
  return [...(c.onSuccess ? ['backup_success'] : []), ...(c.onFailure ? ['backup_failed', 'backup_partial'] : [])];
}

/** The request body's common part, names trimmed and event types without repeats. */
export function commonBody(c: ChannelCommon) {
  return {
    name: c.name.trim(), enabled: c.enabled, onSuccess: c.onSuccess, onFailure: c.onFailure,
    eventTypes: [...new Set(c.eventTypes.map((e) => e.trim()).filter(Boolean))], digest: c.digest, digestTime: c.digestTime,
  };
}
