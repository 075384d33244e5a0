import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A restic repository: one per task and storage target (docs/repositories.md), in restic's own
 * layout under `prefix` on the target, encrypted with a password generated for it and sealed here.
 */
export const RepositoryEntity = defineEntity({
  name: 'Repository',
  tableName: 'repositories',
  uniques: [{ properties: ['taskId', 'storageTargetId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    taskId: p.integer(),
    storageTargetId: p.integer(),
    /** The repository's folder on the target (`repositories/task-<id>`). */
    prefix: p.string().length(500),
    /** The repository password, sealed (SecretBox; never in a response, a log or an argument). */
    sealedPassword: p.text().lazy(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Set when a snapshot was forgotten; the leader prunes the repository and clears it. */
    pruneRequestedAt: p.datetime().nullable(),
  },
});
export type Repository = InferEntity<typeof RepositoryEntity>;
