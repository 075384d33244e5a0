import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import { BackupRecordEntity } from '../db/entities/backup-record.ts';
import { RestoreRecordEntity } from '../db/entities/recovery-records.ts';
import { RepositoryEntity, type Repository } from '../db/entities/repository.ts';
import { StorageTargetEntity, type StorageTarget } from '../db/entities/storage-target.ts';
import { AppError } from '../http/app-error.ts';
import type { Repositories } from '../backup/repositories.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import { handleResticRequest, type ResticResponse } from '../engine/index.ts';

/**
 * restic on a node reaches its repositories through the master (docs/repositories.md#on-agents):
 * `/api/agent/repositories/<run>/<target>/<capability>/…` speaks restic's REST protocol onto the
 * target's storage, so the node never holds storage credentials. The bridge is append-only (restic
 * rest-server's semantics: nothing is deleted or replaced but locks), so a stolen node token or
 * capability can add snapshots but never destroy one; forget and prune happen on the master.
 *
 * restic cannot send the node's token, so the path carries a capability: an HMAC of the run and
 * target keyed with the repository's own password (random, sealed), which any master of a
 * cluster can check, valid only while the run is running on a node.
 */

type RunKind = 'backup' | 'restore';

const CACHE_MS = 5_000;

/** A checked capability: the repository and its target, kept briefly for the run's next requests. */
interface Opened {
  at: number;
  repository: Repository;
  target: StorageTarget;
}

export class AgentRepositoryBridge {
  readonly #orm: MikroORM;
  readonly #repositories: Repositories;
  readonly #opener: StorageTargetOpener;
  /** Recently checked capabilities: restic makes a request per file, the run's state changes slowly. */
  readonly #checked = new Map<string, Opened>();

  readonly #log: FastifyBaseLogger;

  constructor(deps: {
    orm: MikroORM;
    repositories: Repositories;
    storageOpener: StorageTargetOpener;
    logger: FastifyBaseLogger;
  }) {
    this.#log = deps.logger.child({ component: 'agent-repository-bridge' });
    this.#orm = deps.orm;
    this.#repositories = deps.repositories;
    this.#opener = deps.storageOpener;
  }

  /** The path (below the master's URL) restic on the node uses as its repository. */
  path(repository: Repository, kind: RunKind, runId: number, targetId: number): string {
    const run = `${kind === 'backup' ? 'b' : 'r'}${runId}`;
    return `/api/agent/repositories/${run}/${targetId}/${this.#capability(repository, run, targetId)}/`;
  }

  #capability(repository: Repository, run: string, targetId: number): string {
    return createHmac('sha256', this.#repositories.password(repository))
      .update(`bridge:${run}:${targetId}`)
      .digest('base64url');
  }

  /** One restic request; 404 for anything a capability does not open (no hint of why). */
  async serve(
    params: { run: string; targetId: number; capability: string; rest: string },
    request: { method: string; query: Record<string, unknown>; headers: Record<string, unknown>; body: Readable },
    signal: AbortSignal,
  ): Promise<ResticResponse> {
    const opened = await this.#open(params.run, params.targetId, params.capability);
    const storage = await this.#opener.open(opened.target);
    const response = await handleResticRequest(
      {
        method: request.method,
        path: `/${params.rest}`,
        query: request.query as Record<string, string>,
        headers: request.headers as Record<string, string>,
        body: request.body,
      },
      {
        storage,
        prefix: opened.repository.prefix,
        appendOnly: true,
        signal,
        onError: (err) => this.#log.error({ err, run: params.run, targetId: params.targetId }, 'repository bridge'),
      },
    ).catch(async (err: unknown) => {
      await storage.close?.();
      throw err;
    });
    const body = response.body;
    if (body && typeof body === 'object' && 'once' in body)
      (body as Readable).once('close', () => void storage.close?.()?.catch(() => undefined));
    else await storage.close?.();
    return response;
  }

  async #open(run: string, targetId: number, capability: string): Promise<Opened> {
    const key = `${run}/${targetId}/${capability}`;
    const cached = this.#checked.get(key);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached;
    const refused = new AppError('ROUTE_NOT_FOUND');
    const match = /^([br])(\d{1,15})$/.exec(run);
    if (!match) throw refused;
    const em = this.#orm.em.fork();
    const id = Number(match[2]);
    // The run must be running on a node; its record names the task whose repository this is.
    let taskId: number;
    if (match[1] === 'b') {
      const record = await em.findOne(BackupRecordEntity, { id });
      if (!record || record.status !== 'running' || record.nodeId === 0 || record.backupKind !== 'repository')
        throw refused;
      taskId = record.taskId;
    } else {
      const restore = await em.findOne(RestoreRecordEntity, { id });
      if (!restore || restore.status !== 'running' || restore.nodeId === 0) throw refused;
      taskId = restore.taskId;
    }
    const repository = await em.findOne(
      RepositoryEntity,
      { taskId, storageTargetId: targetId },
      { populate: ['sealedPassword'] },
    );
    if (!repository) throw refused;
    const expected = Buffer.from(this.#capability(repository, run, targetId));
    const given = Buffer.from(capability);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused;
    const target = await em.findOne(StorageTargetEntity, { id: targetId }, { populate: ['secrets'] });
    if (!target) throw refused;
    const checked = { at: Date.now(), repository, target };
    this.#checked.set(key, checked);
    if (this.#checked.size > 1000) this.#checked.delete(this.#checked.keys().next().value!);
    return checked;
  }
}
