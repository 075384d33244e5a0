import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A configured storage target. The provider type's settings live here as JSON (`config`) plus
 * a sealed blob of its secret fields (`secrets`): plugins define no tables of their own.
 */
export const StorageTargetEntity = defineEntity({
  name: 'StorageTarget',
  tableName: 'storage_targets',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(128).unique(),
    type: p.string().length(64),
    description: p.string().length(500).default(''),
    enabled: p.boolean().default(true),
    starred: p.boolean().default(false),
    /** Non-secret settings, JSON. */
    config: p.text(),
    /** Secret settings, JSON sealed with the master key (AES-256-GCM); '' when there are none. */
    secrets: p.text().default('').lazy(),
    /** Agents may upload straight to this target (trades the write-only guarantee for bandwidth). */
    agentDirectUpload: p.boolean().default(false),
    /** Soft quota in bytes; 0 = none. */
    quotaBytes: p.bigint('number').default(0),
    lastTestStatus: p.string().length(16).default(''),
    lastTestAt: p.datetime().nullable(),
    lastTestMessage: p.string().length(500).default(''),
    healthStatus: p.string().length(16).default('unknown'),
    healthCheckedAt: p.datetime().nullable(),
    healthMessage: p.string().length(500).default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type StorageTarget = InferEntity<typeof StorageTargetEntity>;
