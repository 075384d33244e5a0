import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { NodeEntity, type Node } from '../../db/entities/node.ts';
import { BackupTaskEntity } from '../../db/entities/backup-task.ts';
import { AgentCommandEntity } from '../../db/entities/agent-command.ts';
import { BackupRecordEntity } from '../../db/entities/backup-record.ts';
import type { Config } from '../../config/config.ts';
import { AppError } from '../../http/app-error.ts';
import { generateToken, hashToken } from '../../security/tokens.ts';
import { normaliseTags } from '../backup-tasks/backup-task-service.ts';
import { toNodeView, type NodeCounts } from './node-view.ts';
import type { HeartbeatInput, NodeInput, NodeUpdate, NodeView } from './node-schemas.ts';

/** How long the token a rotation replaced keeps working, so a running agent can be re-configured. */
export const ROTATION_GRACE_MS = 10 * 60_000;
export const MAX_NAME_LENGTH = 128;

/** A trimmed name of 1-128 characters, or 400 INVALID_INPUT. */
export function nodeName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > MAX_NAME_LENGTH) {
    throw new AppError('INVALID_INPUT', { details: [{ path: 'body/name', message: `must be 1 to ${MAX_NAME_LENGTH} characters after trimming` }] });
  }
  return name;
}

function labelsCsv(labels: string | string[]): string {
  const csv = normaliseTags(labels).join(',');
  if (csv.length > 500) throw new AppError('INVALID_INPUT', { details: [{ path: 'body/labels', message: 'must be at most 500 characters once joined' }] });
  return csv;
}

/** Nodes: admin CRUD, agent tokens (stored as SHA-256 only) and the agent's heartbeat. */
export class NodeService {
  readonly #em: EntityManager;
  readonly #config: Config;

  constructor({ em, config }: { em: EntityManager; config: Config }) {
    this.#em = em;
    this.#config = config;
  }

  async list(page: { limit: number; offset: number }): Promise<[Node[], number]> {
    return this.#em.findAndCount(NodeEntity, {}, { orderBy: { id: 'asc' }, limit: page.limit, offset: page.offset });
  }

  async get(id: number): Promise<Node> {
    const node = await this.#em.findOne(NodeEntity, { id });
    if (!node) throw new AppError('NODE_NOT_FOUND');
    return node;
  }

  /** Views with their running/queued record counts, in one query for the whole page. */
  async views(nodes: Node[]): Promise<NodeView[]> {
    const counts = new Map<number, NodeCounts>(nodes.map((n) => [n.id, { running: 0, queued: 0, commands: 0, lost: 0 }]));
    if (nodes.length > 0) {
      const ids = nodes.map((n) => n.id);
      const since = new Date(Date.now() - 24 * 3600_000);
      const open = await this.#em.find(AgentCommandEntity, { nodeId: { $in: ids }, $or: [{ status: { $in: ['pending', 'claimed'] } }, { lostAt: { $gt: since } }] }, { fields: ['id', 'nodeId', 'status', 'lostAt'] });
      for (const c of open) {
        const n = counts.get(c.nodeId)!;
        if (c.status === 'pending' || c.status === 'claimed') n.commands += 1;
        if (c.lostAt && c.lostAt > since) n.lost += 1;
      }
      const active = await this.#em.find(BackupRecordEntity, { nodeId: { $in: nodes.map((n) => n.id) }, status: { $in: ['queued', 'running'] } }, { fields: ['id', 'nodeId', 'status'] });
      for (const r of active) {
        const c = counts.get(r.nodeId);
        if (!c) continue;
        if (r.status === 'running') c.running += 1;
        else c.queued += 1;
      }
    }
    const now = Date.now();
    return nodes.map((n) => toNodeView(n, counts.get(n.id)!, this.#config.nodeOfflineSeconds, now));
  }

  async view(node: Node): Promise<NodeView> {
    return (await this.views([node]))[0]!;
  }

  /** Creates a node with a fresh agent token; the plain token is returned once and never stored. */
  async create(input: NodeInput): Promise<{ node: Node; token: string }> {
    const name = nodeName(input.name);
    const labels = input.labels === undefined ? '' : labelsCsv(input.labels);
    return this.#em.transactional(async (em) => {
      await this.#requireFreeName(em, name, undefined);
      const token = generateToken('node');
      const node = em.create(NodeEntity, {
        name,
        isLocal: false,
        tokenHash: hashToken(token),
        labels,
        maxConcurrent: input.maxConcurrent ?? 1,
        bandwidthLimit: input.bandwidthLimit ?? '',
      });
      await this.#flushUnique(em);
      return { node, token };
    });
  }

  async update(id: number, input: NodeUpdate): Promise<Node> {
    return this.#em.transactional(async (em) => {
      const node = await em.findOne(NodeEntity, { id });
      if (!node) throw new AppError('NODE_NOT_FOUND');
      if (input.name !== undefined) {
        const name = nodeName(input.name);
        await this.#requireFreeName(em, name, id);
        node.name = name;
      }
      if (input.labels !== undefined) node.labels = labelsCsv(input.labels);
      if (input.maxConcurrent !== undefined) node.maxConcurrent = input.maxConcurrent;
      if (input.bandwidthLimit !== undefined) node.bandwidthLimit = input.bandwidthLimit;
      await this.#flushUnique(em);
      return node;
    });
  }

  /** Refused (409 NODE_HAS_TASKS) while a task is placed on the node or a run is queued or running there. */
  async delete(id: number): Promise<Node> {
    return this.#em.transactional(async (em) => {
      const node = await em.findOne(NodeEntity, { id });
      if (!node) throw new AppError('NODE_NOT_FOUND');
      const tasks = await em.count(BackupTaskEntity, { nodeId: id });
      const active = await em.count(BackupRecordEntity, { nodeId: id, status: { $in: ['queued', 'running'] } });
      if (tasks > 0 || active > 0) {
        throw new AppError('NODE_HAS_TASKS', { message: `Node "${node.name}" has ${tasks} backup task(s) and ${active} queued or running backup(s); move or delete them first.` });
      }
      em.remove(node);
      await em.flush();
      return node;
    });
  }

  /** A new token; the replaced one stays valid for ROTATION_GRACE_MS (none when the node had no token). */
  async rotateToken(id: number): Promise<{ node: Node; token: string; previousTokenValidUntil: Date | null }> {
    return this.#em.transactional(async (em) => {
      const node = await em.findOne(NodeEntity, { id });
      if (!node) throw new AppError('NODE_NOT_FOUND');
      const token = generateToken('node');
      const validUntil = node.tokenHash ? new Date(Date.now() + ROTATION_GRACE_MS) : null;
      node.previousTokenHash = node.tokenHash ?? null;
      node.previousTokenExpiresAt = validUntil;
      node.tokenHash = hashToken(token);
      await em.flush();
      return { node, token, previousTokenValidUntil: validUntil };
    });
  }

  /** Records what the agent reports; absent fields keep their stored values. `lastSeenAt` is always now. */
  async heartbeat(nodeId: number, input: HeartbeatInput, clientIp: string): Promise<Node> {
    const node = await this.get(nodeId);
    if (input.hostname !== undefined) node.hostname = input.hostname;
    node.ipAddress = (input.ipAddress ?? clientIp).slice(0, 64);
    if (input.os !== undefined) node.os = input.os;
    if (input.arch !== undefined) node.arch = input.arch;
    if (input.agentVersion !== undefined) node.agentVersion = input.agentVersion;
    if (input.lastError !== undefined) node.lastError = input.lastError;
    node.lastSeenAt = new Date();
    await this.#em.flush();
    return node;
  }

  async #requireFreeName(em: EntityManager, name: string, selfId: number | undefined): Promise<void> {
    const other = await em.findOne(NodeEntity, { name }, { fields: ['id'] });
    if (other && other.id !== selfId) throw new AppError('NODE_DUPLICATE_NAME');
  }

  async #flushUnique(em: EntityManager): Promise<void> {
    try {
      await em.flush();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new AppError('NODE_DUPLICATE_NAME');
      throw err;
    }
  }
}
