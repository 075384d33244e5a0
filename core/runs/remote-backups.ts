import type { Alerts } from '../notifications/alerts.ts';
import type { EventBus } from '../events/event-bus.ts';
import type { Readable } from 'node:stream';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import {
  BackupRecordEntity,
  BackupRecordCopyEntity,
  BackupRecordEntryEntity,
  TERMINAL_STATUSES,
  type BackupRecord,
} from '../db/entities/backup-record.ts';
import { BackupTaskEntity, type BackupTask } from '../db/entities/backup-task.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import { NodeEntity } from '../db/entities/node.ts';
import { AppError } from '../http/app-error.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import type { SecretBox } from '../security/secret-box.ts';
import {
  type ProviderRegistry,
  artifactExtension,
  storageKey,
  fileNameOf,
  rawExtensionOf,
  withWarnings,
  type Compression,
  checksumGuard,
  driverFor,
  archivePath,
  errorText,
  humanBytes,
  type RunStop,
  type StopStatus,
} from '../engine/index.ts';
import type { DatabaseDriverType } from '@backplane/plugin-api';
import type { BackupMetrics } from '../metrics/backup-metrics.ts';
import type { RecordLogHub, ProgressInfo, LogLevel } from '../backup/record-log.ts';
import type { BackupRuns } from './backup-runs.ts';
import { settleBackup } from '../backup/record-outcome.ts';
import { sourceSpecOf } from '../backup/task-spec.ts';
import { carryManifestRows, chooseBase } from '../backup/backup-chain.ts';
import type { TarSnapshots } from '../backup/tar-snapshots.ts';
import { repositoryFolder, type Repositories } from '../backup/repositories.ts';
import type { AgentRepositoryBridge } from './agent-repository-bridge.ts';
import type { StorageTarget } from '../db/entities/storage-target.ts';
import { recordedUsage } from '../storage/target-usage.ts';
import { taskTargets } from '../backup/task-targets.ts';
import { DB_PASSWORD_AAD } from '../backup/task-spec.ts';
import type { CommandQueue } from '../agent-protocol/command-queue.ts';
import type { RecordUpdateInput, TaskSpec } from '../agent-protocol/wire.ts';

/** A record update as the wire carries it (validated by the route's schema). */
export type RecordUpdate = RecordUpdateInput;

interface Deps {
  orm: MikroORM;
  commandQueue: CommandQueue;
  backupRuns: BackupRuns;
  recordLogs: RecordLogHub;
  backupMetrics: BackupMetrics;
  events: EventBus;
  alerts: Alerts;
  storageOpener: StorageTargetOpener;
  secretBox: SecretBox;
  databaseDrivers: ProviderRegistry<DatabaseDriverType>;
  ageRecipient: string;
  logger: FastifyBaseLogger;
  tarSnapshots: TarSnapshots;
  repositories: Repositories;
  agentRepositoryBridge: AgentRepositoryBridge;
}

const isTerminal = (r: BackupRecord): boolean => TERMINAL_STATUSES.includes(r.status);

/**
 * The first manifest entry whose path is not a clean archive name (what the tar source writes:
 * relative, no `.`, `..` or empty components, no NUL), with why; undefined when all are clean.
 */
function refusedEntry(manifest: ReadonlyArray<{ path: string }>): string | undefined {
  for (const { path } of manifest) {
    const clean = archivePath(path);
    if (typeof clean !== 'string') return `entry ${JSON.stringify(path)} ${clean.refused}`;
    if (clean !== path)
      return `entry ${JSON.stringify(path)} is not a relative path in clean form (expected ${JSON.stringify(clean)})`;
  }
  return undefined;
}

/** A success must name what was stored; refused (400) before the update touches anything. */
function refuseIncompleteSuccess(u: RecordUpdate): void {
  if (u.status !== 'success') return;
  if (u.repositoryResults !== undefined) {
    if (u.fileSize === undefined || u.rawSize === undefined || u.repositoryResults.length === 0)
      throw new AppError('INVALID_INPUT', {
        message: 'A repository success needs fileSize, rawSize and repositoryResults.',
      });
    return;
  }
  if (!u.checksum || !/^[0-9a-f]{64}$/.test(u.checksum) || u.fileSize === undefined || u.rawSize === undefined) {
    throw new AppError('INVALID_INPUT', { message: 'A success needs checksum (64 hex), fileSize and rawSize.' });
  }
}

/**
 * The master's half of a backup that runs on an agent. The agent reports; the master decides:
 * it assigns the object key, receives relayed artifacts through a checksum guard, confirms
 * direct copies itself, and settles the record with the same code as a local run (log, events,
 * metrics, retention, replication, dependents).
 */
export class RemoteBackups {
  readonly #deps: Deps;
  readonly #log: FastifyBaseLogger;
  /** Records this process counted in the `running` gauge (a restart must not decrement twice). */
  readonly #counted = new Set<number>();
  /** Relayed uploads under way, per record: a stop aborts them before it removes what was stored. */
  readonly #relays = new Map<number, Set<{ controller: AbortController; done: Promise<void> }>>();
  /** Records the master stopped while their agent still held them: swept again once the agent lets go. */
  readonly #stopped = new Set<number>();
  /** One change at a time per record (an agent's final update and a stop must not both settle it). */
  readonly #locks = new Map<number, Promise<unknown>>();

  constructor(deps: Deps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: 'remote-backups' });
  }

  async #owned(em: EntityManager, nodeId: number, recordId: number): Promise<BackupRecord> {
    const record = await em.findOne(BackupRecordEntity, { id: recordId });
    if (!record) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    if (record.nodeId !== nodeId) throw new AppError('AGENT_COMMAND_FORBIDDEN');
    return record;
  }

  /** The run's key: named from its start, like a run on the master (see `storageKey`). */
  #key(
    record: BackupRecord & { startedAt: Date },
    { name: taskName, type, dbName }: { name: string; type: string; dbName: string },
    compression: Compression,
    encrypted: boolean,
  ): { key: string; rawExtension: string } {
    const driver = type === 'file' ? undefined : driverFor(this.#deps.databaseDrivers.list(), type);
    const rawExtension = rawExtensionOf({ type, dbName }, driver);
    return {
      key: storageKey(taskName, record.id, record.startedAt, artifactExtension(rawExtension, compression, encrypted)),
      rawExtension,
    };
  }

  /**
   * An agent's run starts when it first reads its spec or reports `running`, whichever comes
   * first: the spec already names the artifact, so the start is stamped (once) by then.
   */
  async #stampStart(
    em: EntityManager,
    record: BackupRecord,
    now = new Date(),
  ): Promise<BackupRecord & { startedAt: Date }> {
    if (!record.startedAt) {
      record.startedAt = now;
      await em.flush();
    }
    return record as BackupRecord & { startedAt: Date };
  }

  /** `GET /api/agent/tasks/:id`: what the agent needs for one placed run, secrets only where it must write itself. */
  spec(nodeId: number, taskId: number, recordId: number): Promise<TaskSpec> {
    // In the record's queue, so the start stamped here and a `running` update cannot race.
    return this.#serial(recordId, () => this.#spec(nodeId, taskId, recordId));
  }

  async #spec(nodeId: number, taskId: number, recordId: number): Promise<TaskSpec> {
    const em = this.#deps.orm.em.fork();
    const record = await this.#owned(em, nodeId, recordId);
    if (record.taskId !== taskId)
      throw new AppError('AGENT_COMMAND_FORBIDDEN', { message: `Record ${recordId} is not a run of task ${taskId}.` });
    if (isTerminal(record)) throw new AppError('AGENT_RECORD_TERMINAL');
    const task = await em.findOne(BackupTaskEntity, { id: taskId }, { populate: ['dbPassword'] });
    if (!task) throw new AppError('BACKUP_TASK_NOT_FOUND');
    const node = await em.findOneOrFail(NodeEntity, { id: nodeId });
    const compression = record.compression as Compression;
    const { key, rawExtension } = this.#key(await this.#stampStart(em, record), task, compression, record.encrypted);
    const targets = (await taskTargets(em, taskId)).filter((t) => t.enabled);
    return {
      recordId,
      taskId,
      name: task.name,
      source: {
        ...sourceSpecOf(task),
        dbPassword: task.dbPassword ? this.#deps.secretBox.open(task.dbPassword, DB_PASSWORD_AAD) : '',
      },
      compression,
      encrypt: record.encrypted,
      recipient: record.encrypted ? this.#deps.ageRecipient : null,
      storageKey: key,
      rawExtension,
      targets: targets.map((t) =>
        t.agentDirectUpload
          ? { id: t.id, name: t.name, mode: 'direct', type: t.type, config: this.#deps.storageOpener.fullConfig(t) }
          : { id: t.id, name: t.name, mode: 'relay', type: t.type },
      ),
      bandwidthLimit: node.bandwidthLimit,
      differential: await this.#differential(em, record, task),
      repository: await this.#repository(em, record, task, targets),
    };
  }

  /**
   * Repository mode on a node: for each target, the path of the master's append-only bridge
   * to the task's repository there, and the repository's password (restic on the node encrypts
   * with it; it reaches only the node that runs the task, like a database password).
   */
  async #repository(
    em: EntityManager,
    record: BackupRecord,
    task: BackupTask,
    targets: StorageTarget[],
  ): Promise<TaskSpec['repository']> {
    if (task.backupMode !== 'repository' || task.type !== 'file') return null;
    const { repositories, agentRepositoryBridge } = this.#deps;
    if (record.backupKind !== 'repository') {
      record.backupKind = 'repository';
      await em.flush();
    }
    const out: NonNullable<TaskSpec['repository']>['targets'] = [];
    for (const t of targets) {
      const repository = await repositories.of(task.id, t.id);
      out.push({
        id: t.id,
        name: t.name,
        path: agentRepositoryBridge.path(repository, 'backup', record.id, t.id),
        password: repositories.password(repository),
      });
    }
    return { targets: out, lockWaitSeconds: repositories.lockWaitSeconds };
  }

  /**
   * Differential mode on a node: the master chooses the base as for its own runs (backup-chain.ts)
   * and names it with its snapshot file's hash; the agent makes the differential with its own copy
   * of that file or the sealed one (`baseSnapshot`). A spec read again names the same base.
   */
  async #differential(em: EntityManager, record: BackupRecord, task: BackupTask): Promise<TaskSpec['differential']> {
    if (task.backupMode !== 'differential' || task.type !== 'file') return null;
    const { tarSnapshots, storageOpener } = this.#deps;
    if (record.backupKind === 'differential') {
      const checksum = await tarSnapshots.checksumOf(record.baseRecordId);
      if (checksum) return { baseRecordId: record.baseRecordId, checksum, note: '' };
    }
    const found = await chooseBase(em, storageOpener, task, record.startedAt ?? new Date());
    const checksum = 'base' in found ? await tarSnapshots.checksumOf(found.base.id) : undefined;
    if (!('base' in found) || !checksum) {
      record.backupKind = 'full';
      record.baseRecordId = 0;
      await em.flush();
      const reason = 'reason' in found ? found.reason : `full ${found.base.id} has no stored snapshot file`;
      return { baseRecordId: 0, checksum: '', note: reason };
    }
    record.backupKind = 'differential';
    record.baseRecordId = found.base.id;
    await em.flush();
    return { baseRecordId: found.base.id, checksum, note: '' };
  }

  /** `GET /api/agent/records/:id/base-snapshot`: the sealed snapshot file of a differential's full, for its agent. */
  async baseSnapshot(nodeId: number, recordId: number): Promise<Buffer> {
    const em = this.#deps.orm.em.fork();
    const record = await this.#owned(em, nodeId, recordId);
    if (isTerminal(record)) throw new AppError('AGENT_RECORD_TERMINAL');
    if (record.backupKind !== 'differential')
      throw new AppError('AGENT_SNAPSHOT_UNAVAILABLE', { message: `Record ${recordId} is not a differential.` });
    const data = await this.#deps.tarSnapshots.read(record.baseRecordId);
    if (typeof data === 'string') throw new AppError('AGENT_SNAPSHOT_UNAVAILABLE', { message: `${data}.` });
    return data;
  }

  /** `PUT /api/agent/records/:id/tar-snapshot`: a differential-mode full's snapshot file, sealed with its record. */
  async storeSnapshot(nodeId: number, recordId: number, data: Buffer): Promise<void> {
    const em = this.#deps.orm.em.fork();
    const record = await this.#owned(em, nodeId, recordId);
    if (isTerminal(record)) throw new AppError('AGENT_RECORD_TERMINAL');
    const task = await em.findOne(BackupTaskEntity, { id: record.taskId });
    if (record.backupKind !== 'full' || task?.backupMode !== 'differential' || record.type !== 'file')
      throw new AppError('AGENT_SNAPSHOT_UNAVAILABLE', {
        message: `Record ${recordId} is not a full of a task in differential mode.`,
      });
    if (!data.subarray(0, 16).toString('latin1').startsWith('GNU tar-'))
      throw new AppError('INVALID_INPUT', { message: 'The body is not a GNU tar snapshot file.' });
    await this.#deps.tarSnapshots.seal(recordId, data);
  }

  #serial<T>(recordId: number, fn: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(recordId) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.#locks.set(recordId, tail);
    void tail.then(() => {
      if (this.#locks.get(recordId) === tail) this.#locks.delete(recordId);
    });
    return run;
  }

  /** `POST /api/agent/records/:id`. */
  update(nodeId: number, recordId: number, u: RecordUpdate): Promise<{ accepted: boolean; status: string }> {
    return this.#serial(recordId, () => this.#update(nodeId, recordId, u));
  }

  async #update(nodeId: number, recordId: number, u: RecordUpdate): Promise<{ accepted: boolean; status: string }> {
    const { recordLogs, commandQueue } = this.#deps;
    const em = this.#deps.orm.em.fork();
    const record = await this.#owned(em, nodeId, recordId);
    if (isTerminal(record)) return { accepted: false, status: record.status };
    // Refused before anything changes: a refused update must not renew the lease either (a
    // lapsed run would be revived only to fail later).
    refuseIncompleteSuccess(u);
    // Work whose claim the master took back (the agent was silent past its lease) is stale: the
    // command is queued again and will run afresh; the old run must stop.
    if (!(await commandQueue.touch(nodeId, 'backup', recordId, record.status === 'queued')))
      return { accepted: false, status: record.status };
    if (record.status === 'queued') await this.#start(em, record);
    else if (!recordLogs.isLive(recordId)) await recordLogs.open(recordId, 'running'); // the master restarted mid-run
    for (const line of u.logs ?? []) void recordLogs.line(recordId, line.level, line.message);
    if (u.progress) {
      const p = u.progress;
      recordLogs.progress(
        recordId,
        p,
        `${humanBytes(p.bytesRead)} read, ${humanBytes(p.bytesStored)} stored, ${humanBytes(p.speedBps)}/s`,
      );
    }
    if (u.manifest?.length) {
      const refused = refusedEntry(u.manifest);
      if (refused) {
        // An honest agent names entries as the tar source does; anything else would be listed,
        // searched and offered for selective restore as a path outside the restore root.
        await this.#finishFailed(em, record, `the agent's manifest was refused: ${refused}`);
        throw new AppError('AGENT_MANIFEST_INVALID', { message: `Refused: ${refused}. The run is failed.` });
      }
      await em.insertMany(
        BackupRecordEntryEntity,
        u.manifest.map((e) => ({
          recordId,
          path: e.path,
          size: e.size,
          mtime: new Date(e.mtime),
          mode: e.mode,
          entryType: e.type,
        })),
      );
    }
    if (u.backupKind === 'full' && record.backupKind === 'differential') {
      record.backupKind = 'full';
      record.baseRecordId = 0;
      await em.flush();
    }
    if (u.carried?.length && record.backupKind === 'differential') {
      const refused = refusedEntry(u.carried) ?? refusedEntry(u.carried.map((c) => ({ path: c.from })));
      if (refused) {
        await this.#finishFailed(em, record, `the agent's manifest was refused: ${refused}`);
        throw new AppError('AGENT_MANIFEST_INVALID', { message: `Refused: ${refused}. The run is failed.` });
      }
      await carryManifestRows(this.#deps.orm, recordId, record.baseRecordId, u.carried);
    }
    if (u.status === 'success')
      await this.#finishSuccess(
        em,
        record,
        u as RecordUpdate & { checksum: string; fileSize: number; rawSize: number },
      );
    else if (u.status === 'failed')
      await this.#finishFailed(
        em,
        record,
        (u.errorMessage ?? '').trim() || 'the agent reported a failure without a reason',
        u.errorCode,
      );
    return { accepted: true, status: record.status };
  }

  async #start(em: EntityManager, record: BackupRecord): Promise<void> {
    const task = await em.findOne(BackupTaskEntity, { id: record.taskId });
    if (!task) throw new AppError('BACKUP_TASK_NOT_FOUND', { message: 'The task was deleted before the run started.' });
    const node = await em.findOne(NodeEntity, { id: record.nodeId });
    const now = new Date();
    const { key } = this.#key(
      await this.#stampStart(em, record, now),
      task,
      record.compression as Compression,
      record.encrypted,
    );
    // A repository run stores a snapshot in the repository's folder on each target, not an object.
    const repository = record.backupKind === 'repository';
    const prefix = repositoryFolder(task.id);
    record.status = 'running';
    record.storagePath = repository ? prefix : key;
    record.fileName = repository ? `${task.name}-${record.id}.restic` : fileNameOf(key);
    task.lastRunAt = now;
    task.lastStatus = 'running';
    for (const t of await taskTargets(em, task.id)) {
      em.create(BackupRecordCopyEntity, {
        recordId: record.id,
        storageTargetId: t.id,
        storageTargetName: t.name,
        storagePath: repository ? prefix : key,
        status: t.enabled ? 'pending' : 'failed',
        error: t.enabled ? '' : 'the storage target is disabled',
        transferMode: t.agentDirectUpload ? 'direct' : 'master_relay',
      });
    }
    await em.flush();
    await this.#deps.recordLogs.open(record.id, 'running');
    this.#deps.backupMetrics.running.inc();
    this.#counted.add(record.id);
    void this.#deps.recordLogs.line(
      record.id,
      'info',
      `backup of task "${task.name}" (${task.type}) started on node "${node?.name ?? record.nodeId}",` +
        ` trigger ${record.trigger} by ${record.triggeredBy}; writing ${key}`,
    );
  }

  /**
   * `PUT /api/agent/records/:id/artifacts/:targetId`: the body goes through a length and
   * SHA-256 guard straight into the target's atomic put, so a short or altered upload leaves
   * no object behind.
   */
  async relay(
    nodeId: number,
    recordId: number,
    targetId: number,
    upload: { key: string; size: number; sha256: string; body: Readable },
  ): Promise<{ targetId: number; size: number; checksum: string }> {
    // Registered before the record is read: a stop either finds this upload or this upload finds the record ended.
    const controller = new AbortController();
    let finished!: () => void;
    const entry = { controller, done: new Promise<void>((resolve) => (finished = resolve)) };
    const set = this.#relays.get(recordId) ?? new Set();
    this.#relays.set(recordId, set.add(entry));
    try {
      return await this.#relay(nodeId, recordId, targetId, upload, controller.signal);
    } finally {
      set.delete(entry);
      if (set.size === 0 && this.#relays.get(recordId) === set) this.#relays.delete(recordId);
      finished();
    }
  }

  async #relay(
    nodeId: number,
    recordId: number,
    targetId: number,
    upload: { key: string; size: number; sha256: string; body: Readable },
    signal: AbortSignal,
  ): Promise<{ targetId: number; size: number; checksum: string }> {
    const em = this.#deps.orm.em.fork();
    const record = await this.#owned(em, nodeId, recordId);
    const notHeld = (): AppError =>
      new AppError('AGENT_RECORD_TERMINAL', {
        message: `The record is ${record.status} and not held by this node's agent; artifacts are accepted while its run holds it.`,
      });
    if (record.status !== 'running') throw notHeld();
    // Every refusal comes before the lease is renewed: a refused upload changes nothing.
    if (upload.key !== record.storagePath)
      throw new AppError('AGENT_OBJECT_KEY_INVALID', { message: `This record's key is ${record.storagePath}.` });
    const copy = await em.findOne(BackupRecordCopyEntity, { recordId, storageTargetId: targetId });
    const target = copy ? await em.findOne(StorageTargetEntity, { id: targetId }, { populate: ['secrets'] }) : null;
    if (!copy || !target || target.agentDirectUpload || copy.status === 'failed' || copy.status === 'deleted') {
      throw new AppError('AGENT_TARGET_INVALID', {
        message: `Target ${targetId} is not an open relay target of record ${recordId}.`,
      });
    }
    if (target.quotaBytes > 0) {
      const used = await recordedUsage(em, target.id);
      if (used.bytes + upload.size > target.quotaBytes)
        throw new AppError('STORAGE_QUOTA_EXCEEDED', {
          message: `"${target.name}" holds ${humanBytes(used.bytes)} of its ${humanBytes(target.quotaBytes)} quota.`,
        });
    }
    if (!(await this.#deps.commandQueue.touch(nodeId, 'backup', recordId))) throw notHeld();
    let mismatch = '';
    const guard = checksumGuard(upload.size, upload.sha256, (why) => {
      mismatch = why;
    });
    upload.body.on('error', (err) => guard.destroy(err));
    upload.body.pipe(guard);
    const onStop = (): void =>
      void guard.destroy(signal.reason instanceof Error ? signal.reason : new Error('the run was stopped'));
    signal.addEventListener('abort', onStop, { once: true });
    copy.attempts += 1;
    try {
      const stored = await this.#deps.storageOpener.use(target, (instance) =>
        instance.put(upload.key, guard, { size: upload.size, signal }),
      );
      // Stopped while the object was being committed (or by another master process): it goes.
      const now = await this.#deps.orm.em.fork().findOne(BackupRecordEntity, { id: recordId }, { fields: ['status'] });
      if (signal.aborted || now?.status !== 'running') {
        await this.#deps.storageOpener
          .use(target, (instance) => instance.delete(upload.key))
          .catch((err: unknown) =>
            this.#log.error(
              { err, recordId, target: target.name },
              'an object relayed to a stopped run could not be removed',
            ),
          );
        throw new AppError('AGENT_RECORD_TERMINAL', {
          message: `The record is ${now?.status ?? 'gone'}; the relayed object was removed.`,
        });
      }
      copy.status = 'success';
      copy.fileSize = stored.size;
      copy.error = '';
      await em.flush();
      void this.#deps.recordLogs.line(
        recordId,
        'info',
        `target "${target.name}": ${humanBytes(stored.size)} received from the agent and stored`,
      );
      return { targetId, size: stored.size, checksum: upload.sha256 };
    } catch (err) {
      if (signal.aborted || err instanceof AppError)
        throw err instanceof AppError
          ? err
          : new AppError('AGENT_RECORD_TERMINAL', { message: `The run was stopped: ${errorText(signal.reason)}.` });
      copy.error = (mismatch ? `relayed artifact refused: ${mismatch}` : `relay failed: ${errorText(err)}`).slice(
        0,
        2000,
      );
      await em.flush();
      void this.#deps.recordLogs.line(recordId, 'warn', `target "${target.name}": ${copy.error}`);
      if (mismatch) throw new AppError('AGENT_CHECKSUM_MISMATCH', { message: copy.error });
      throw err;
    } finally {
      signal.removeEventListener('abort', onStop);
    }
  }

  async #finishSuccess(
    em: EntityManager,
    record: BackupRecord,
    u: RecordUpdate & { checksum: string; fileSize: number; rawSize: number },
  ): Promise<void> {
    if (record.backupKind === 'repository') return this.#finishRepository(em, record, u);
    const copies = await em.find(BackupRecordCopyEntity, { recordId: record.id });
    const reported = new Map((u.targets ?? []).map((t) => [t.targetId, t]));
    const targets = new Map(
      (
        await em.find(
          StorageTargetEntity,
          { id: { $in: copies.map((c) => c.storageTargetId) } },
          { populate: ['secrets'] },
        )
      ).map((t) => [t.id, t]),
    );
    for (const copy of copies) {
      const target = targets.get(copy.storageTargetId);
      if (copy.status !== 'pending' && copy.status !== 'success') continue;
      if (target?.agentDirectUpload) {
        const claim = reported.get(copy.storageTargetId);
        if (claim?.status !== 'success') {
          copy.status = 'failed';
          copy.error = (claim?.error ?? 'the agent did not report this target').slice(0, 2000);
          continue;
        }
        // The agent's word is not enough: the master looks at the object itself.
        const seen = await this.#deps.storageOpener
          .use(target, (i) => i.stat(record.storagePath))
          .catch((err: unknown) => new Error(errorText(err)));
        if (seen instanceof Error || !seen || seen.size !== u.fileSize) {
          copy.status = 'failed';
          copy.error =
            seen instanceof Error
              ? `the object could not be checked: ${seen.message}`
              : !seen
                ? 'the agent reported an upload the master cannot find'
                : `the stored object has ${seen.size} bytes, the artifact ${u.fileSize}`;
          continue;
        }
        copy.status = 'success';
        copy.fileSize = seen.size;
      } else if (copy.status === 'success' && copy.fileSize !== u.fileSize) {
        copy.status = 'failed';
        copy.error = `the relayed object has ${copy.fileSize} bytes, the agent's artifact ${u.fileSize}`;
      } else if (copy.status === 'pending') {
        copy.status = 'failed';
        copy.error = copy.error || 'the agent never relayed the artifact to this target';
      }
    }
    for (const c of copies)
      if (c.status === 'failed')
        void this.#deps.recordLogs.line(record.id, 'error', `target "${c.storageTargetName}" failed: ${c.error}`);
    const stored = copies.filter((c) => c.status === 'success');
    if (stored.length === 0) {
      await this.#finishFailed(
        em,
        record,
        copies.map((c) => `${c.storageTargetName}: ${c.error}`).join('; ') || 'no target holds the artifact',
      );
      return;
    }
    record.fileSize = u.fileSize;
    record.rawSize = u.rawSize;
    record.checksum = u.checksum;
    // File runs and several-database runs (one dump per entry) send a manifest.
    const entries = await em.count(BackupRecordEntryEntity, { recordId: record.id });
    if (entries > 0) {
      record.hasManifest = true;
      record.sourceStats = JSON.stringify({ entries, ...(u.databaseStats ? { databases: u.databaseStats } : {}) });
    } else if (u.tableStats) record.sourceStats = JSON.stringify({ tables: u.tableStats });
    const status = stored.length === copies.length ? 'success' : 'partial';
    // On a success the agent's errorMessage carries the run's warnings (paths missing, files skipped).
    const failedCopies =
      status === 'partial'
        ? copies
            .filter((c) => c.status === 'failed')
            .map((c) => `${c.storageTargetName}: ${c.error}`)
            .join('; ')
        : '';
    record.errorMessage = withWarnings(failedCopies, (u.errorMessage ?? '').trim());
    void this.#deps.recordLogs.line(
      record.id,
      'info',
      `stored ${humanBytes(u.fileSize)} (from ${humanBytes(u.rawSize)}), sha256 ${u.checksum}${entries ? `, ${entries} entries` : ''}`,
    );
    await this.#settle(em, record, status);
  }

  /**
   * A repository run's success: each snapshot the agent reports is looked up in the repository
   * by the master itself (the agent's word is not enough), then the record settles as any run.
   */
  async #finishRepository(em: EntityManager, record: BackupRecord, u: RecordUpdate): Promise<void> {
    const copies = await em.find(BackupRecordCopyEntity, { recordId: record.id });
    const reported = new Map((u.repositoryResults ?? []).map((r) => [r.targetId, r]));
    for (const copy of copies) {
      if (copy.status !== 'pending') continue;
      const claim = reported.get(copy.storageTargetId);
      if (claim?.status !== 'success' || !claim.snapshotId) {
        copy.status = 'failed';
        copy.error = (claim?.error ?? 'the agent did not report this target').slice(0, 2000);
        copy.errorCode = claim?.errorCode ?? '';
        continue;
      }
      const target = await em.findOne(StorageTargetEntity, { id: copy.storageTargetId }, { populate: ['secrets'] });
      const seen = target
        ? await this.#snapshotThere(record.taskId, target, claim.snapshotId).catch((err: unknown) => errorText(err))
        : 'the storage target is gone';
      if (seen !== true) {
        copy.status = 'failed';
        copy.error = (seen === false ? 'the reported snapshot is not in the repository' : seen).slice(0, 2000);
        continue;
      }
      copy.status = 'success';
      copy.snapshotId = claim.snapshotId;
      copy.fileSize = claim.dataAdded ?? 0;
    }
    for (const c of copies)
      if (c.status === 'failed')
        void this.#deps.recordLogs.line(record.id, 'error', `target "${c.storageTargetName}" failed: ${c.error}`);
    const stored = copies.filter((c) => c.status === 'success');
    const code = copies.find((c) => c.errorCode !== '')?.errorCode ?? '';
    if (stored.length === 0) {
      await this.#finishFailed(em, record, copies.map((c) => `${c.storageTargetName}: ${c.error}`).join('; '), code);
      return;
    }
    record.errorCode = code;
    record.fileSize = u.fileSize ?? 0;
    record.rawSize = u.rawSize ?? 0;
    const entries = await em.count(BackupRecordEntryEntity, { recordId: record.id });
    if (entries > 0) {
      record.hasManifest = true;
      record.sourceStats = JSON.stringify({ entries });
    }
    const status = stored.length === copies.length ? 'success' : 'partial';
    const failed = copies
      .filter((c) => c.status === 'failed')
      .map((c) => `${c.storageTargetName}: ${c.error}`)
      .join('; ');
    record.errorMessage = withWarnings(failed, (u.errorMessage ?? '').trim());
    void this.#deps.recordLogs.line(
      record.id,
      'info',
      `snapshots checked in ${stored.length} repositor${stored.length === 1 ? 'y' : 'ies'}; ${humanBytes(record.fileSize)} added`,
    );
    await this.#settle(em, record, status);
  }

  /** Whether the task's repository on `target` holds the snapshot. */
  async #snapshotThere(taskId: number, target: StorageTarget, snapshotId: string): Promise<boolean> {
    const { repositories } = this.#deps;
    const opened = await repositories.open(await repositories.of(taskId, target.id), target);
    try {
      return (await opened.restic.snapshots([snapshotId])).some((s) => s.id === snapshotId);
    } finally {
      await opened.close();
    }
  }

  async #finishFailed(em: EntityManager, record: BackupRecord, reason: string, code = ''): Promise<void> {
    record.errorMessage = reason.slice(0, 2000);
    record.errorCode = code;
    void this.#deps.recordLogs.line(record.id, 'error', record.errorMessage);
    await em.flush();
    // A failed run keeps nothing: relayed or direct objects and the partial listing go.
    await this.#deps.backupRuns.removeObjects([record]);
    await em.nativeUpdate(
      BackupRecordCopyEntity,
      { recordId: record.id, status: 'pending' },
      { status: 'failed', error: reason.slice(0, 2000) },
    );
    await em.nativeDelete(BackupRecordEntryEntity, { recordId: record.id });
    await this.#settle(em, record, 'failed');
  }

  async #settle(em: EntityManager, record: BackupRecord, status: 'success' | 'partial' | StopStatus): Promise<void> {
    const task = await em.findOne(BackupTaskEntity, { id: record.taskId });
    await settleBackup(this.#deps, em, record, task, status);
    if (this.#counted.delete(record.id)) this.#deps.backupMetrics.running.dec();
    // Retention, replication and dependents may take long; the agent's request does not wait.
    void this.#deps.backupRuns
      .afterRun(record, status)
      .catch((err: unknown) => this.#log.error({ err, recordId: record.id }, 'after-run work failed'));
  }

  /**
   * Stops a placed run (a cancel, or its time limit) without waiting for the agent: a command
   * not yet claimed is withdrawn, uploads relayed through the master are aborted, what was
   * stored is removed and the record ends with the stop's status. The agent learns it from the
   * refusal of its next update and kills its work; once it lets go (its command result, or the
   * lease lapsing) the targets are swept once more, for a direct upload that finished meanwhile.
   */
  stop(recordId: number, stop: RunStop): Promise<boolean> {
    return this.#serial(recordId, async () => {
      const em = this.#deps.orm.em.fork();
      const record = await em.findOne(BackupRecordEntity, { id: recordId });
      if (!record || isTerminal(record)) return false;
      // Ended in the table first, with its reason (a reader never sees an ended record without
      // one): a relay starting from now on sees it and refuses.
      if (
        (await em.nativeUpdate(
          BackupRecordEntity,
          { id: recordId, status: { $in: ['queued', 'running'] } },
          { status: stop.status, errorMessage: stop.message.slice(0, 2000) },
        )) !== 1
      )
        return false;
      if (!this.#deps.recordLogs.isLive(recordId)) await this.#deps.recordLogs.open(recordId, record.status);
      for (const command of await this.#deps.commandQueue.openFor('backup', recordId)) {
        if (command.status === 'pending') await this.#deps.commandQueue.settle(command.id, 'failed', stop.message);
        else this.#stopped.add(recordId);
      }
      const relays = [...(this.#relays.get(recordId) ?? [])];
      for (const r of relays) r.controller.abort(stop);
      await Promise.all(relays.map((r) => r.done));
      record.errorMessage = stop.message.slice(0, 2000);
      void this.#deps.recordLogs.line(recordId, 'error', record.errorMessage);
      if (!record.startedAt) record.startedAt = new Date();
      await this.#deps.backupRuns.discard(record);
      await this.#settle(em, record, stop.status);
      return true;
    });
  }

  /** The master gives up on a placed run (lease lapsed, agent abandoned it, node gone): failed, nothing kept. */
  fail(recordId: number, reason: string): Promise<boolean> {
    return this.#serial(recordId, () => this.#fail(recordId, reason));
  }

  async #fail(recordId: number, reason: string): Promise<boolean> {
    const em = this.#deps.orm.em.fork();
    const record = await em.findOne(BackupRecordEntity, { id: recordId });
    // The agent of a stopped run let go: anything a direct upload finished after the stop goes now.
    if (record && this.#stopped.delete(recordId)) await this.#deps.backupRuns.removeObjects([record]);
    if (!record || isTerminal(record)) return false;
    if (!this.#deps.recordLogs.isLive(recordId)) await this.#deps.recordLogs.open(recordId, record.status);
    if (!record.startedAt) record.startedAt = new Date();
    await this.#finishFailed(em, record, reason);
    return true;
  }
}
