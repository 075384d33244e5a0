import type { StorageTarget } from '../../db/entities/storage-target.ts';
import type { StorageType } from '@backplane/plugin-api';
import { maskConfig } from '../../plugin-host/provider-config.ts';
import { aliasView } from '../../plugin-host/config-aliases.ts';
import { masterRelayView } from '../../storage/master-relay.ts';

export function toTargetSummary(t: StorageTarget) {
  return {
    id: t.id,
    name: t.name,
    type: t.type,
    description: t.description,
    enabled: t.enabled,
    starred: t.starred,
    // The config format version; Backplane has had one format.
    configVersion: 1,
    agentDirectUpload: t.agentDirectUpload,
    quotaBytes: t.quotaBytes,
    lastTestStatus: t.lastTestStatus || 'unknown',
    lastTestedAt: t.lastTestAt?.toISOString() ?? null,
    lastTestMessage: t.lastTestMessage,
    healthStatus: t.healthStatus,
    healthCheckedAt: t.healthCheckedAt?.toISOString() ?? null,
    healthMessage: t.healthMessage,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

/**
 * The detail: the config with every stored secret masked, and which fields were masked; the
 * alias names of the same settings are added where the type declares them (its configAliases, config-aliases.ts).
 */
export function toTargetDetail(t: StorageTarget, type: StorageType | undefined, storedSecretKeys: string[]) {
  const masked = maskConfig(type, JSON.parse(t.config) as Record<string, unknown>, storedSecretKeys);
  const { config, maskedFields } = aliasView(type, masked);
  return { ...toTargetSummary(t), config: masterRelayView(t.type, config, t.agentDirectUpload), maskedFields };
}
