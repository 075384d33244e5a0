import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type CommandStatus = 'pending' | 'claimed' | 'succeeded' | 'failed';
export type CommandType = 'run_task' | 'restore_record' | 'list_dir' | 'discover_db';

/**
 * Work for one node's agent. `pending` until a poll claims it (`claimed`, with a lease the
 * agent's heartbeats and updates renew), then `succeeded` or `failed`. A claimed command whose
 * lease lapses goes back to `pending` if it never started, else fails. Payloads hold ids and
 * paths only, never secrets: an agent fetches credentials through the spec routes.
 */
export const AgentCommandEntity = defineEntity({
  name: 'AgentCommand',
  tableName: 'agent_commands',
  properties: {
    id: p.integer().primary().autoincrement(),
    nodeId: p.integer(),
    type: p.string().length(32),
    status: p.string().length(16).$type<CommandStatus>().default('pending'),
    /** JSON. */
    payload: p.text().default('{}'),
    /** Credentials the command needs (database discovery), sealed with the master key; '' once settled. */
    secrets: p.text().default(''),
    /** JSON reported by the agent ('' until then). */
    result: p.text().default(''),
    error: p.text().default(''),
    /** The backup or restore record this command drives ('' / 0 for RPCs). */
    recordKind: p.string().length(16).default(''),
    recordId: p.integer().default(0),
    /** Claims so far (a re-queued command is claimed again). */
    attempts: p.integer().default(0),
    claimedAt: p.datetime().nullable(),
    /** When the agent reported it under way; a lost command that had started is failed, not re-queued. */
    startedAt: p.datetime().nullable(),
    leaseExpiresAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    /** When the master last took it back from a silent or restarted agent (node health). */
    lostAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [
    { properties: ['nodeId', 'status'] },
    { properties: ['status', 'leaseExpiresAt'] },
    { properties: ['recordKind', 'recordId'] },
  ],
});
export type AgentCommand = InferEntity<typeof AgentCommandEntity>;
