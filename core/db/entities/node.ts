import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A machine that runs tasks: the master itself (isLocal) or a remote node with an agent. */
export const NodeEntity = defineEntity({
  name: 'Node',
  tableName: 'nodes',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(128).unique(),
    isLocal: p.boolean().default(false),
    /** SHA-256 of the long-lived agent token (`bpn_...`); the token itself is shown once. */
    tokenHash: p.string().length(64).nullable().unique(),
    /** The token replaced by the last rotation, accepted until `previousTokenExpiresAt`. */
    previousTokenHash: p.string().length(64).nullable().index(),
    previousTokenExpiresAt: p.datetime().nullable(),
    /** Normalised CSV of labels (placement pools). */
    labels: p.string().length(500).default(''),
    /** Concurrent runs the agent may take (1-64). */
    maxConcurrent: p.integer().default(1),
    /** Upload rate limit for the agent, as rclone writes it (`10M`); '' = none. */
    bandwidthLimit: p.string().length(32).default(''),
    /** The agent's last reported error ('' = none). */
    lastError: p.text().default(''),
    hostname: p.string().length(255).default(''),
    ipAddress: p.string().length(64).default(''),
    os: p.string().length(64).default(''),
    arch: p.string().length(64).default(''),
    agentVersion: p.string().length(64).default(''),
    lastSeenAt: p.datetime().nullable(),
    /** The status last announced (node_online/node_offline); '' until the node was first seen. */
    alertStatus: p.string().length(16).default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  // One local node (the master itself), even when two masters start at once on one database.
  uniques: [{ name: 'nodes_one_local', properties: ['isLocal'], where: { isLocal: true } }],
});
export type Node = InferEntity<typeof NodeEntity>;
