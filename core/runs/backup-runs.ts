import type { Alerts } from '../notifications/alerts.ts';
import type { EventBus } from '../events/event-bus.ts';
import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import {
  ARTIFACT_STATUSES,
  BackupRecordEntity,
  BackupRecordCopyEntity,
  BackupRecordEntryEntity,
  type BackupRecord,
} from '../db/entities/backup-record.ts';
import { BackupTaskEntity } from '../db/entities/backup-task.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import { AppError } from '../http/app-error.ts';
import { SYSTEM_ACTOR as SYSTEM, type AuditWriter } from '../events/audit-writer.ts';
import type { BackupMetrics } from '../metrics/backup-metrics.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import { parseMaintenanceWindows, withinMaintenanceWindows } from '../backup/maintenance-window.ts';
import type { BackupExecutor } from '../backup/backup-executor.ts';
import type { RetentionService } from '../backup/retention-service.ts';
import { scheduleTimeZone } from '../backup/time-zone.ts';
import type { ReplicationService } from '../recovery/replication-service.ts';
import type { CommandQueue } from '../agent-protocol/command-queue.ts';
import { placeRun, recordNodeId, runsOnMaster, type PlacementLimits } from '../agent-protocol/placement.ts';
import type { RunTaskPayload } from '../agent-protocol/wire.ts';
import type { RecordLogHub } from '../backup/record-log.ts';
import { settleBackup } from '../backup/record-outcome.ts';
import type { RunStop } from '../engine/index.ts';
import type { Repositories } from '../backup/repositories.ts';

export type RunTrigger = 'manual' | 'scheduled' | 'catch_up' | 'dependency';

export interface RunRequest {
  trigger: RunTrigger;
  /** Username, or `system`. */
  triggeredBy: string;
}

/**
 * Starts runs and owns the master's run slots: a record is created `queued`, waits for one of
 * `maxConcurrent` slots (FIFO), then runs on the executor. One queued-or-running record per
 * task at a time (overlap is refused, not queued twice). On start-up it settles what a crash
 * left behind; on shutdown it cancels what is running.
 */
export class BackupRuns {
  readonly #orm: MikroORM;
  readonly #executor: BackupExecutor;
  readonly #retention: RetentionService;
  readonly #audit: AuditWriter;
  readonly #metrics: BackupMetrics;
  readonly #opener: StorageTargetOpener;
  readonly #repositories: Repositories;
  readonly #log: FastifyBaseLogger;
  readonly #replications: ReplicationService;
  readonly #maxConcurrent: number;
  readonly #placement: PlacementLimits;
  readonly #commands: CommandQueue;
  readonly #outcome: { recordLogs: RecordLogHub; backupMetrics: BackupMetrics; events: EventBus; alerts: Alerts };
  readonly #queue: number[] = [];
  readonly #running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  /** Tasks with a run being created right now (closes the check-then-insert race in one process). */
  readonly #claiming = new Set<number>();
  /** The tail of the placements in progress (see #oneAtATime). */
  #placing: Promise<void> = Promise.resolve();
  #stopping = false;
  readonly #masterId: number;

  constructor({
    masterId,
    orm,
    backupExecutor,
    retention,
    audit,
    backupMetrics,
    storageOpener,
    logger,
    config,
    replications,
    commandQueue,
    recordLogs,
    events,
    alerts,
    repositories,
  }: {
    orm: MikroORM;
    backupExecutor: BackupExecutor;
    retention: RetentionService;
    audit: AuditWriter;
    backupMetrics: BackupMetrics;
    storageOpener: StorageTargetOpener;
    logger: FastifyBaseLogger;
    config: { maxConcurrent: number; nodeOfflineSeconds: number };
    replications: ReplicationService;
    commandQueue: CommandQueue;
    recordLogs: RecordLogHub;
    events: EventBus;
    alerts: Alerts;
    masterId: number;
    repositories: Repositories;
  }) {
    this.#repositories = repositories;
    this.#masterId = masterId;
    this.#placement = { offlineSeconds: config.nodeOfflineSeconds, masterSlots: config.maxConcurrent };
    this.#commands = commandQueue;
    this.#outcome = { recordLogs, backupMetrics, events, alerts };
    this.#replications = replications;
    this.#orm = orm;
    this.#executor = backupExecutor;
    this.#retention = retention;
    this.#audit = audit;
    this.#metrics = backupMetrics;
    this.#opener = storageOpener;
    this.#log = logger.child({ component: 'backup-runs' });
    this.#maxConcurrent = Math.max(1, config.maxConcurrent);
  }

  /**
   * Queues a run of the task: on the master's queue, or as a command for the node it is placed
   * on (its own node or the least busy of its label pool). Refuses (AppError) when the task is
   * missing, already has a queued or running record (the database holds the rule, so two
   * masters asked at once give one run), or is outside its maintenance windows
   * (every trigger). When no node can take it, the run is recorded as failed (it shows in the
   * history and notifies) and NODE_OFFLINE is thrown with the record's id.
   */
  async request(taskId: number, req: RunRequest): Promise<BackupRecord> {
    if (this.#stopping) throw new AppError('SERVICE_UNAVAILABLE', { message: 'The server is shutting down.' });
    if (this.#claiming.has(taskId)) throw new AppError('BACKUP_TASK_ALREADY_RUNNING');
    this.#claiming.add(taskId);
    try {
      const em = this.#orm.em.fork();
      const task = await em.findOne(BackupTaskEntity, { id: taskId });
      if (!task) throw new AppError('BACKUP_TASK_NOT_FOUND');
      const active = await em.count(BackupRecordEntity, { taskId, status: { $in: ['queued', 'running'] } });
      if (active > 0)
        throw new AppError('BACKUP_TASK_ALREADY_RUNNING', {
          message: `Task "${task.name}" already has a queued or running backup.`,
        });
      const windows = parseMaintenanceWindows(task.maintenanceWindows);
      if (!withinMaintenanceWindows(windows, new Date(), await scheduleTimeZone(this.#orm))) {
        throw new AppError('BACKUP_TASK_OUTSIDE_WINDOW', {
          message: `Task "${task.name}" may only run within: ${task.maintenanceWindows}.`,
        });
      }
      const fields = {
        taskId,
        taskName: task.name,
        type: task.type,
        status: 'queued' as const,
        trigger: req.trigger,
        triggeredBy: req.triggeredBy.slice(0, 100),
        compression: task.compression,
        encrypted: task.encrypt,
      };
      const queueOnMaster = async (): Promise<BackupRecord> => {
        const record = em.create(BackupRecordEntity, { ...fields, nodeId: 0, masterId: this.#masterId });
        await em.flush();
        this.#enqueue(record.id);
        return record;
      };
      if (runsOnMaster(task)) return await queueOnMaster();
      // Placement and the command it leads to, one request at a time: two runs asked for at
      // once must each see the other's work, or a pool sends both to the same node.
      return await this.#oneAtATime(async () => {
        let nodeId: number;
        try {
          // 0 is placement on the local node: the master's own queue.
          nodeId = recordNodeId(await placeRun(em, task, this.#placement));
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          const record = em.create(BackupRecordEntity, {
            ...fields,
            nodeId: task.nodeId,
            status: 'failed',
            errorMessage: err.message,
            startedAt: new Date(),
          });
          await em.flush();
          await settleBackup(this.#outcome, em, record, task, 'failed');
          throw new AppError(err.code, { message: err.message, details: { recordId: record.id } });
        }
        if (nodeId === 0) return queueOnMaster();
        // The record and its command commit together: a placed record never lacks the command that drives it.
        return em.transactional(async (tx) => {
          const record = tx.create(BackupRecordEntity, { ...fields, nodeId });
          await tx.flush();
          this.#commands.add(tx, {
            nodeId,
            type: 'run_task',
            payload: { taskId, recordId: record.id } satisfies RunTaskPayload,
            recordKind: 'backup',
            recordId: record.id,
          });
          await tx.flush();
          return record;
        });
      });
    } catch (err) {
      // The database's one-active-run index (migration 019): another request, on this master or
      // another one, queued a run of the task since the count above.
      if (err instanceof UniqueConstraintViolationException)
        throw new AppError('BACKUP_TASK_ALREADY_RUNNING', {
          message: 'The task already has a queued or running backup.',
        });
      throw err;
    } finally {
      this.#claiming.delete(taskId);
    }
  }

  /** Runs `work` after every placement asked for before it has finished. */
  #oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#placing.then(work, work);
    this.#placing = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  get runningCount(): number {
    return this.#running.size;
  }

  get queuedCount(): number {
    return this.#queue.length;
  }

  /** Resolves once nothing is queued or running (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size > 0 || this.#queue.length > 0) {
      await Promise.allSettled([...this.#running.values()].map((r) => r.done));
      if (this.#running.size === 0 && this.#queue.length > 0) await new Promise((r) => setImmediate(r));
    }
  }

  #enqueue(recordId: number): void {
    this.#queue.push(recordId);
    this.#metrics.queued.set(this.#queue.length);
    this.#pump();
  }

  #pump(): void {
    while (!this.#stopping && this.#running.size < this.#maxConcurrent && this.#queue.length > 0) {
      const recordId = this.#queue.shift()!;
      this.#metrics.queued.set(this.#queue.length);
      const controller = new AbortController();
      const done = this.#execute(recordId, controller.signal).finally(() => {
        this.#running.delete(recordId);
        this.#pump();
      });
      this.#running.set(recordId, { controller, done });
    }
  }

  async #execute(recordId: number, signal: AbortSignal): Promise<void> {
    try {
      // Still this master's: while its database session was lost the leader may have taken the
      // record over as a dead master's (recover), and runs it now.
      if (
        (await this.#orm.em
          .fork()
          .count(BackupRecordEntity, { id: recordId, masterId: this.#masterId, status: 'queued' })) === 0
      )
        return;
      const { record, status } = await this.#executor.execute(recordId, signal);
      // A stopped run keeps nothing, even what a target finished before the stop.
      if (signal.aborted) await this.discard(record);
      await this.afterRun(record, status);
    } catch (err) {
      // The executor records its own failures; reaching here means the database itself failed.
      this.#log.error({ err, recordId }, 'backup run crashed');
      await this.#markFailed([recordId], `internal error: ${err instanceof Error ? err.message : String(err)}`).catch(
        () => undefined,
      );
    }
  }

  /** What follows every finished run, on the master or an agent: retention, replication, dependents. */
  async afterRun(record: Pick<BackupRecord, 'id' | 'taskId'>, status: BackupRecord['status']): Promise<void> {
    if (!ARTIFACT_STATUSES.includes(status)) return;
    await this.#retention
      .applyForTask(record.taskId)
      .catch((err: unknown) => this.#log.error({ err, taskId: record.taskId }, 'retention failed'));
    if (this.#stopping) return;
    await this.#replicate(record.id, record.taskId);
    if (status === 'success') await this.#runDependents(record.taskId);
  }

  /** The task's automatic replication targets each get a copy (3-2-1); a refusal is audited. */
  async #replicate(recordId: number, taskId: number): Promise<void> {
    const task = await this.#orm.em.fork().findOne(BackupTaskEntity, { id: taskId });
    for (const destId of task ? (JSON.parse(task.replicationTargetIds) as number[]) : []) {
      try {
        await this.#replications.request(recordId, destId, 'system');
      } catch (err) {
        await this.#audit.record(SYSTEM, {
          category: 'backup_record',
          action: 'replication_skip',
          targetType: 'backup_record',
          targetId: recordId,
          targetName: task?.name ?? '',
          detail: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }

  async #runDependents(upstreamId: number): Promise<void> {
    const em = this.#orm.em.fork();
    const candidates = await em.find(BackupTaskEntity, { enabled: true });
    const dependents = candidates.filter((t) => (JSON.parse(t.dependsOnTaskIds) as number[]).includes(upstreamId));
    for (const task of dependents) {
      try {
        const record = await this.request(task.id, { trigger: 'dependency', triggeredBy: 'system' });
        await this.#audit.record(SYSTEM, {
          category: 'backup_task',
          action: 'dependency_run',
          targetType: 'backup_task',
          targetId: task.id,
          targetName: task.name,
          detail: `after task ${upstreamId}; record ${record.id}`,
        });
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        this.#metrics.skipped.inc({ reason: err instanceof AppError ? err.code.toLowerCase() : 'error' });
        await this.#audit.record(SYSTEM, {
          category: 'backup_task',
          action: 'dependency_skip',
          targetType: 'backup_task',
          targetId: task.id,
          targetName: task.name,
          detail: why,
        });
      }
    }
  }

  /**
   * The master's records of masters not in `live` (stopped, crashed, or this master's earlier
   * process; see DeadMasters): those left `running` become `failed` and any object their run may
   * have completed is removed (the record never reached `success`, so nothing may depend on it);
   * those left `queued` are taken over (one master's conditional update wins) and queued here.
   * Records placed on nodes are left to their agents (their commands and leases survive the
   * restart; see LeaseMonitor).
   */
  async recover(live: number[]): Promise<{ failed: number; requeued: number }> {
    const em = this.#orm.em.fork();
    const running = await em.find(BackupRecordEntity, { status: 'running', nodeId: 0, masterId: { $nin: live } });
    if (running.length > 0) {
      await this.removeObjects(running);
      await this.#markFailed(
        running.map((r) => r.id),
        'the master stopped while this backup was running (crash or kill); any partial artifact was removed',
      );
      for (const r of running)
        this.#log.warn({ recordId: r.id, taskId: r.taskId }, 'backup left running by a previous process marked failed');
    }
    const queued = await em.find(
      BackupRecordEntity,
      { status: 'queued', nodeId: 0, masterId: { $nin: live } },
      { orderBy: { id: 'asc' } },
    );
    let requeued = 0;
    for (const r of queued) {
      if (
        (await em.nativeUpdate(
          BackupRecordEntity,
          { id: r.id, status: 'queued', masterId: r.masterId },
          { masterId: this.#masterId },
        )) !== 1
      )
        continue;
      this.#enqueue(r.id);
      requeued++;
    }
    return { failed: running.length, requeued };
  }

  /**
   * Stops a run this process holds: a queued one ends at once, a running one is aborted with
   * `stop` (its tool processes killed, its uploads cancelled) and waited for; what it stored is
   * removed either way. False when the record is neither queued nor running here.
   */
  async stopLocal(recordId: number, stop: RunStop): Promise<boolean> {
    const running = this.#running.get(recordId);
    if (running) {
      running.controller.abort(stop);
      await running.done;
      return true;
    }
    const at = this.#queue.indexOf(recordId);
    if (at < 0) return false;
    this.#queue.splice(at, 1);
    this.#metrics.queued.set(this.#queue.length);
    const em = this.#orm.em.fork();
    const record = await em.findOne(BackupRecordEntity, { id: recordId });
    if (!record || record.status !== 'queued') return false;
    await this.#outcome.recordLogs.open(recordId, 'queued');
    record.errorMessage = stop.message;
    void this.#outcome.recordLogs.line(recordId, 'error', stop.message);
    await settleBackup(
      this.#outcome,
      em,
      record,
      await em.findOne(BackupTaskEntity, { id: record.taskId }),
      stop.status,
    );
    return true;
  }

  /** What a stopped run leaves: no object on any target, no copy claiming success, no file list. */
  async discard(record: Pick<BackupRecord, 'id'>): Promise<void> {
    await this.removeObjects([record]);
    const em = this.#orm.em.fork();
    await em.nativeUpdate(
      BackupRecordCopyEntity,
      { recordId: record.id, status: { $in: ['pending', 'success'] } },
      { status: 'failed', error: 'the run was stopped' },
    );
    await em.nativeDelete(BackupRecordEntryEntity, { recordId: record.id });
  }

  /** Removes every object stored for these records, temporaries of their uploads included (a run that did not end well keeps nothing). */
  async removeObjects(records: Pick<BackupRecord, 'id'>[]): Promise<void> {
    const em = this.#orm.em.fork();
    const copies = await em.find(BackupRecordCopyEntity, { recordId: { $in: records.map((r) => r.id) } });
    const repositoryRuns = new Map(
      (
        await em.find(
          BackupRecordEntity,
          { id: { $in: records.map((r) => r.id) }, backupKind: 'repository' },
          { fields: ['id', 'taskId'] },
        )
      ).map((r) => [r.id, r.taskId]),
    );
    const targets = new Map(
      (
        await em.find(
          StorageTargetEntity,
          { id: { $in: [...new Set(copies.map((c) => c.storageTargetId))] } },
          { populate: ['secrets'] },
        )
      ).map((t) => [t.id, t]),
    );
    for (const copy of copies) {
      const target = targets.get(copy.storageTargetId);
      if (!target || copy.storagePath === '') continue;
      try {
        const taskId = repositoryRuns.get(copy.recordId);
        if (taskId !== undefined) {
          // A repository run: its snapshot (if it got that far) is forgotten, a killed restic's lock cleared.
          await this.#repositories.release(taskId, target, copy.snapshotId);
          copy.status = 'deleted';
          continue;
        }
        await this.#opener.use(target, async (instance) => {
          await instance.delete(copy.storagePath);
          // A killed upload cannot clean up after itself: its temporary object goes too.
          await instance.removeTemporaries?.(copy.storagePath);
        });
        copy.status = 'deleted';
      } catch (err) {
        copy.status = 'failed';
        copy.error = `could not remove the partial object: ${err instanceof Error ? err.message : String(err)}`.slice(
          0,
          2000,
        );
        this.#log.error(
          { err, recordId: copy.recordId, target: target.name },
          'partial object left on a target after a crash',
        );
      }
    }
    await em.flush();
  }

  async #markFailed(ids: number[], reason: string): Promise<void> {
    const em = this.#orm.em.fork();
    const now = new Date();
    for (const record of await em.find(BackupRecordEntity, { id: { $in: ids } })) {
      record.status = 'failed';
      record.errorMessage = reason;
      record.completedAt = now;
      if (record.startedAt) record.durationMs = now.getTime() - record.startedAt.getTime();
    }
    await em.nativeUpdate(
      BackupRecordCopyEntity,
      { recordId: { $in: ids }, status: 'pending' },
      { status: 'failed', error: reason },
    );
    const taskIds = [...new Set((await em.find(BackupRecordEntity, { id: { $in: ids } })).map((r) => r.taskId))];
    await em.nativeUpdate(BackupTaskEntity, { id: { $in: taskIds }, lastStatus: 'running' }, { lastStatus: 'failed' });
    await em.flush();
  }

  /**
   * This master lost its database session: to the others it may be dead, and the leader fails
   * its running records after a grace period (DeadMasters). Its runs stop now, before that: none
   * may then report success over the leader's verdict. Queued records stay queued here; each is
   * checked to be still this master's before it starts.
   */
  abortRunning(reason: string): void {
    for (const { controller } of this.#running.values()) controller.abort(new Error(reason));
  }

  /** Shutdown: nothing new starts, queued records stay queued (picked up at next start), running ones are cancelled. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#queue.length = 0;
    for (const { controller } of this.#running.values()) controller.abort(new Error('the master is shutting down'));
    await Promise.allSettled([...this.#running.values()].map((r) => r.done));
  }
}
