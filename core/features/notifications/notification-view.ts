import type { NotifierType } from '@backplane/plugin-api';
import type { NotificationChannel } from '../../db/entities/notification.ts';
import { maskConfig, optionDocs } from '../../plugin-host/provider-config.ts';
import { aliasView } from '../../plugin-host/config-aliases.ts';
import { eventTypesOf } from '../../notifications/dispatch.ts';

export function toChannelSummary(c: NotificationChannel) {
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    enabled: c.enabled,
    onSuccess: c.onSuccess,
    onFailure: c.onFailure,
    eventTypes: eventTypesOf(c),
    digest: c.digest,
    digestTime: c.digestTime,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** The detail: the config with every stored secret masked, and which fields were masked (`maskedFields`). */
export function toChannelDetail(c: NotificationChannel, type: NotifierType | undefined, storedSecretKeys: string[]) {
  const masked = maskConfig(type, JSON.parse(c.config) as Record<string, unknown>, storedSecretKeys);
  const { config, maskedFields } = aliasView(type, masked);
  return { ...toChannelSummary(c), config, maskedFields };
}

/** One installed channel type for clients that build forms: its schema and its fields in the rclone catalogue's shape. */
export function toChannelType(t: NotifierType) {
  return {
    type: t.type,
    displayName: t.displayName,
    description: t.description ?? '',
    configSchema: t.configSchema,
    secretFields: t.secretFields,
    addressKinds: t.addressKinds ?? [],
    options: optionDocs(t).map((o) => ({
      key: o.name,
      label: o.help,
      required: o.required,
      isPassword: o.secret,
      default: o.default,
      advanced: o.advanced ?? false,
    })),
  };
}
