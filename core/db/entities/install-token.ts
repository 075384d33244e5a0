import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A one-time agent installer (`bpi_...`): single use and time-limited. Consuming it mints a
 * short-lived one-time enrollment code (`bpe_...`) that the installer script exchanges for the
 * node's long-lived token. Only SHA-256 hashes of both secrets are stored.
 */
export const InstallTokenEntity = defineEntity({
  name: 'InstallToken',
  tableName: 'install_tokens',
  properties: {
    id: p.integer().primary().autoincrement(),
    nodeId: p.integer().index(),
    tokenHash: p.string().length(64).unique(),
    expiresAt: p.datetime(),
    consumedAt: p.datetime().nullable(),
    enrollHash: p.string().length(64).nullable().unique(),
    enrollExpiresAt: p.datetime().nullable(),
    enrolledAt: p.datetime().nullable(),
    /** Who created it ('' when unknown), for display only. */
    createdBy: p.string().length(64).default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type InstallToken = InferEntity<typeof InstallTokenEntity>;
