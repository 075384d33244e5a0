import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { NodeEntity, type Node } from '../../db/entities/node.ts';
import { BackupTaskEntity } from '../../db/entities/backup-task.ts';
import { BackupRecordEntity } from '../../db/entities/backup-record.ts';
import type { Config } from '../../config/config.ts';
import { AppError } from '../../http/app-error.ts';
import { generateToken, hashToken } from '../../security/tokens.ts';
import type { AgentTokenCache } from '../../auth/agent-token-cache.ts';
import { AggregateSql } from '../../db/aggregate-sql.ts';
import type { HeartbeatWriter } from '../../agent-protocol/heartbeat-writer.ts';
import { normaliseTags } from '../backup-tasks/backup-task-service.ts';
import { toNodeView } from './node-view.ts';
import { nodeCounts } from './node-counts.ts';
import { MAX_NODE_BATCH, type NodeInput, type NodeUpdate, type NodeView } from './node-schemas.ts';
import type { HeartbeatInput } from '../../agent-protocol/wire.ts';

export const MAX_NAME_LENGTH = 128;

/** A trimmed name of 1-128 characters, or 400 INVALID_INPUT. */
export function nodeName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > MAX_NAME_LENGTH) {
    throw new AppError('INVALID_INPUT', {
      details: [{ path: 'body/name', message: `must be 1 to ${MAX_NAME_LENGTH} characters after trimming` }],
    });
  }
  return name;
}

/**
 * The names of a batch: trimmed, blank ones skipped; the whole batch is
 * refused when one is too long or repeated (NODE_NAME_TOO_LONG, NODE_DUPLICATE_NAME).
 */
function batchNames(raw: string[]): string[] {
  if (raw.length === 0) throw new AppError('NODE_BATCH_EMPTY');
  if (raw.length > MAX_NODE_BATCH) throw new AppError('NODE_BATCH_TOO_MANY');
  const names: string[] = [];
  raw.forEach((value, i) => {
    const name = value.trim();
    if (name === '') return;
    if (name.length > MAX_NAME_LENGTH)
      throw new AppError('NODE_NAME_TOO_LONG', {
        details: [{ path: `body/names/${i}`, message: `must be at most ${MAX_NAME_LENGTH} characters after trimming` }],
      });
    if (names.includes(name))
      throw new AppError('NODE_DUPLICATE_NAME', { message: `The batch names "${name}" twice.` });
    names.push(name);
  });
  if (names.length === 0)
    throw new AppError('NODE_BATCH_EMPTY', { message: 'The batch names no nodes once blank names are left out.' });
  return names;
}

function labelsCsv(labels: string | string[]): string {
  const csv = normaliseTags(labels).join(',');
  if (csv.length > 500)
    throw new AppError('INVALID_INPUT', {
      details: [{ path: 'body/labels', message: 'must be at most 500 characters once joined' }],
    });
  return csv;
}

/** Nodes: admin CRUD, agent tokens (stored as SHA-256 only) and the agent's heartbeat. */
export class NodeService {
  readonly #em: EntityManager;
  readonly #config: Config;
  readonly #tokens: AgentTokenCache;
  readonly #heartbeats: HeartbeatWriter;

  constructor({
    em,
    config,
    agentTokens,
    heartbeatWriter,
  }: { em: EntityManager; config: Config; agentTokens: AgentTokenCache; heartbeatWriter: HeartbeatWriter }) {
    this.#em = em;
    this.#heartbeats = heartbeatWriter;
    this.#config = config;
    this.#tokens = agentTokens;
  }

  /** The local node first, then by id. */
  async list(page: { limit: number; offset: number }): Promise<[Node[], number]> {
    return this.#em.findAndCount(
      NodeEntity,
      {},
      { orderBy: { isLocal: 'desc', id: 'asc' }, limit: page.limit, offset: page.offset },
    );
  }

  async get(id: number): Promise<Node> {
    const node = await this.#em.findOne(NodeEntity, { id });
    if (!node) throw new AppError('NODE_NOT_FOUND');
    return node;
  }

  /** Views with their queue summaries, in a few queries for the whole page. */
  async views(nodes: Node[]): Promise<NodeView[]> {
    const counts = await nodeCounts(this.#em, nodes);
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
      const created = this.#newNode(em, {
        name,
        labels,
        maxConcurrent: input.maxConcurrent,
        bandwidthLimit: input.bandwidthLimit,
      });
      await this.#flushUnique(em);
      return created;
    });
  }

  /**
   * A batch: every name is checked first and the nodes are created in one transaction,
   * so a refused batch (NODE_BATCH_EMPTY, NODE_BATCH_TOO_MANY, NODE_NAME_TOO_LONG,
   * NODE_DUPLICATE_NAME) creates nothing and every created node has an id.
   */
  async createBatch(rawNames: string[]): Promise<{ node: Node; token: string }[]> {
    const names = batchNames(rawNames);
    return this.#em.transactional(async (em) => {
      const taken = await em.find(NodeEntity, { name: { $in: names } }, { fields: ['name'] });
      if (taken.length > 0)
        throw new AppError('NODE_DUPLICATE_NAME', { message: `A node named "${taken[0]!.name}" already exists.` });
      const created = names.map((name) => this.#newNode(em, { name, labels: '' }));
      await this.#flushUnique(em);
      return created;
    });
  }

  async update(id: number, input: NodeUpdate): Promise<Node> {
    return this.#em.transactional(async (em) => {
      const node = await em.findOne(NodeEntity, { id });
      if (!node) throw new AppError('NODE_NOT_FOUND');
      if (node.isLocal) refuseLocalSettings(node, input);
      if (input.name !== undefined) {
        const name = nodeName(input.name);
        await this.#requireFreeName(em, name, id);
        node.name = name;
      }
      if (input.labels !== undefined) node.labels = labelsCsv(input.labels);
      if (input.maxConcurrent !== undefined) node.maxConcurrent = input.maxConcurrent;
      if (input.bandwidthLimit !== undefined) node.bandwidthLimit = input.bandwidthLimit;
      await this.#flushUnique(em);
      this.#tokens.clear();
      return node;
    });
  }

  /**
   * Refused for the local node (400 NODE_DELETE_LOCAL) and, with 409 NODE_HAS_TASKS, while a task
   * is placed on the node or a run is queued or running there.
   */
  async delete(id: number): Promise<Node> {
    return this.#em.transactional(async (em) => {
      const node = await em.findOne(NodeEntity, { id });
      if (!node) throw new AppError('NODE_NOT_FOUND');
      if (node.isLocal) throw new AppError('NODE_DELETE_LOCAL');
      const tasks = await em.count(BackupTaskEntity, { nodeId: id });
      const active = await em.count(BackupRecordEntity, { nodeId: id, status: { $in: ['queued', 'running'] } });
      if (tasks > 0 || active > 0) {
        throw new AppError('NODE_HAS_TASKS', {
          message: `Node "${node.name}" has ${tasks} backup task(s) and ${active} queued or running backup(s); move or delete them first.`,
        });
      }
      em.remove(node);
      await em.flush();
      this.#tokens.clear();
      return node;
    });
  }

  /**
   * A new token; the replaced one stays valid for BACKPLANE_TOKEN_ROTATION_GRACE (none when
   * the node had no token or the grace is 0). The local node has no token: 400 NODE_ROTATE_LOCAL.
   */
  async rotateToken(id: number): Promise<{ node: Node; token: string; previousTokenValidUntil: Date | null }> {
    return this.#em.transactional(async (em) => {
      const node = await em.findOne(NodeEntity, { id });
      if (!node) throw new AppError('NODE_NOT_FOUND');
      if (node.isLocal) throw new AppError('NODE_ROTATE_LOCAL');
      const token = generateToken('node');
      const graceSeconds = this.#config.tokenRotationGraceSeconds;
      const keepPrevious = node.tokenHash !== null && node.tokenHash !== undefined && graceSeconds > 0;
      const validUntil = keepPrevious ? new Date(Date.now() + graceSeconds * 1000) : null;
      node.previousTokenHash = keepPrevious ? node.tokenHash! : null;
      node.previousTokenExpiresAt = validUntil;
      node.tokenHash = hashToken(token);
      await em.flush();
      this.#tokens.clear();
      return { node, token, previousTokenValidUntil: validUntil };
    });
  }

  /**
   * Records what the agent reports (absent fields keep their stored values; `lastSeenAt` is
   * always now) with one UPDATE, no entity loaded or tracked (every agent calls this every 15 s),
   * committed together with the other heartbeats of the same moment (HeartbeatWriter).
   * False when the node no longer exists.
   */
  async heartbeat(nodeId: number, input: HeartbeatInput, clientIp: string): Promise<boolean> {
    const sql = new AggregateSql(this.#em);
    const set: [string, unknown][] = [
      ['ip_address', (input.ipAddress ?? clientIp).slice(0, 64)],
      ['last_seen_at', sql.time(new Date())],
    ];
    if (input.hostname !== undefined) set.push(['hostname', input.hostname]);
    if (input.os !== undefined) set.push(['os', input.os]);
    if (input.arch !== undefined) set.push(['arch', input.arch]);
    if (input.agentVersion !== undefined) set.push(['agent_version', input.agentVersion]);
    if (input.lastError !== undefined) set.push(['last_error', input.lastError]);
    return this.#heartbeats.write(nodeId, `update nodes set ${set.map(([c]) => `${c} = ?`).join(', ')} where id = ?`, [
      ...set.map(([, v]) => v),
      nodeId,
    ]);
  }

  #newNode(
    em: EntityManager,
    input: { name: string; labels: string; maxConcurrent?: number; bandwidthLimit?: string },
  ): { node: Node; token: string } {
    const token = generateToken('node');
    const node = em.create(NodeEntity, {
      name: input.name,
      isLocal: false,
      tokenHash: hashToken(token),
      labels: input.labels,
      maxConcurrent: input.maxConcurrent ?? 1,
      bandwidthLimit: input.bandwidthLimit ?? '',
    });
    return { node, token };
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

/**
 * The master's concurrency is BACKPLANE_MAX_CONCURRENT and its bandwidth the `bandwidth_limit`
 * setting: the local node keeps `maxConcurrent` 0 and no bandwidth limit of its own. Sending its
 * current values (as an edit form does) is fine; other values are refused, not ignored.
 */
function refuseLocalSettings(node: Node, input: NodeUpdate): void {
  if (input.maxConcurrent !== undefined && input.maxConcurrent !== node.maxConcurrent) {
    throw new AppError('NODE_LOCAL_SETTING_UNSUPPORTED', {
      message: "The local node runs with the master's BACKPLANE_MAX_CONCURRENT; its maxConcurrent stays 0.",
    });
  }
  if (input.bandwidthLimit !== undefined && input.bandwidthLimit !== node.bandwidthLimit) {
    throw new AppError('NODE_LOCAL_SETTING_UNSUPPORTED', {
      message:
        "The local node has no bandwidth limit of its own (the master's is the bandwidth_limit setting); its bandwidthLimit stays empty.",
    });
  }
}
