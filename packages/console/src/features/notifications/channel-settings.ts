/**
 * A channel's settings besides its type's config, exactly the create body's fields: name, enabled,
 * onSuccess, onFailure, eventTypes, digest, digestTime. Pure: test/console/channel-form.test.ts.
 */

/** An event type of the catalogue (GET /api/notifications/event-types). */
export interface EventTypeInfo {
  type: string;
  description: string;
}

export interface EventTypeOption {
  value: string;
  label: string;
  description: string;
  /** A stored type the server no longer lists: kept in the picker so it shows and can be removed (the server refuses it on save). */
  unknown: boolean;
}

/**
 * The picker's choices: every catalogue type in the server's order, then any selected type the
 * catalogue lacks (a stored channel's, or all of them while the catalogue is not loaded).
 */
export function eventTypeOptions(catalogue: readonly EventTypeInfo[], selected: readonly string[]): EventTypeOption[] {
  const known = new Set(catalogue.map((e) => e.type));
  const extra = [...new Set(selected)].filter((type) => !known.has(type));
  return [
    ...catalogue.map((e) => ({ value: e.type, label: e.type, description: e.description, unknown: false })),
    ...extra.map((type) => ({ value: type, label: type, description: '', unknown: true })),
  ];
}

/** Selected types the catalogue does not list (only meaningful once it is loaded). */
export function unknownEventTypes(catalogue: readonly EventTypeInfo[], selected: readonly string[]): string[] {
  const known = new Set(catalogue.map((e) => e.type));
  return [...new Set(selected)].filter((type) => !known.has(type));
}

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
export const NEW_CHANNEL: ChannelCommon = {
  name: '',
  enabled: true,
  onSuccess: false,
  onFailure: true,
  eventTypes: [],
  digest: '',
  digestTime: '08:00',
};

/** A stored channel's settings as the form edits them ('off' is the same as ''). */
export function commonOf(c: {
  name: string;
  enabled: boolean;
  onSuccess: boolean;
  onFailure: boolean;
  eventTypes: string[];
  digest: string;
  digestTime: string;
}): ChannelCommon {
  return {
    name: c.name,
    enabled: c.enabled,
    onSuccess: c.onSuccess,
    onFailure: c.onFailure,
    eventTypes: [...c.eventTypes],
    digest: c.digest === 'daily' ? 'daily' : '',
    digestTime: c.digestTime || NEW_CHANNEL.digestTime,
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
    name: c.name.trim(),
    enabled: c.enabled,
    onSuccess: c.onSuccess,
    onFailure: c.onFailure,
    eventTypes: [...new Set(c.eventTypes.map((e) => e.trim()).filter(Boolean))],
    digest: c.digest,
    digestTime: c.digestTime,
  };
}
