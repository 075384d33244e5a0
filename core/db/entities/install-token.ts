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
    /** How the script installs the agent: `systemd`, `docker` or `foreground`. */
    mode: p.string().length(16).default('systemd'),
    /** `auto`, or the machine architecture the script insists on (`amd64`, `arm64`). */
    arch: p.string().length(8).default('auto'),
    /** The release the script downloads or runs ('' = the master's own version). */
    agentVersion: p.string().length(64).default(''),
    /** Where a missing agent is downloaded from: `github` or `ghproxy`. */
    downloadSrc: p.string().length(16).default('github'),
    /** The master URL the agent uses ('' = the one the installer was served from). */
    agentMasterUrl: p.string().length(2048).default(''),
    /** An http(s) proxy the script and the agent reach the master through ('' = none). */
    proxyUrl: p.string().length(2048).default(''),
    /** A CA bundle on the node trusted for an https master ('' = the system's). */
    caCertFile: p.string().length(512).default(''),
    /** Who created it ('' when unknown), for display only. */
    createdBy: p.string().length(64).default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type InstallToken = InferEntity<typeof InstallTokenEntity>;
