import type { StorageTarget } from '../../db/entities/storage-target.ts';
import type { StorageType } from '@backplane/plugin-api';
import { maskConfig } from '../../storage/target-config.ts';

export function toTargetSummary(t: StorageTarget) {
  return {
    id: t.id,
    name: t.name,
    type: t.type,
    description: t.description,
    enabled: t.enabled,
    starred: t.starred,
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

/** The detail: the config with every stored secret masked, and which fields were masked. */
export function toTargetDetail(t: StorageTarget, type: StorageType | undefined, storedSecretKeys: string[]) {
  const { config, maskedFields } = maskConfig(type, JSON.parse(t.config) as Record<string, unknown>, storedSecretKeys);
  return { ...toTargetSummary(t), config, maskedFields };
}
