import { PassThrough, type Readable } from 'node:stream';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import {
  BackupRecordCopyEntity,
  BackupRecordEntity,
  TERMINAL_STATUSES,
  type BackupRecord,
} from '../db/entities/backup-record.ts';
import type { Repositories } from '../backup/repositories.ts';
import type { AgentRepositoryBridge } from './agent-repository-bridge.ts';
import { BackupTaskEntity } from '../db/entities/backup-task.ts';
import { RestoreRecordEntity, type RestoreRecord } from '../db/entities/recovery-records.ts';
import { AppError } from '../http/app-error.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import type { SecretBox } from '../security/secret-box.ts';
import {
  type ProviderRegistry,
  type AgeKeyPair,
  restoreTargetOf,
  isDumpArchive,
  driverFor,
  errorText,
} from '../engine/index.ts';
import type { DatabaseDriverType } from '@backplane/plugin-api';
import type { RecordLogHub } from '../backup/record-log.ts';
import { copyVerdict, openStoredCopy, rawStream, unreadableArtifact } from '../recovery/artifact-source.ts';
import { baseOf } from '../recovery/chain-source.ts';
import { settleLifecycle } from '../recovery/run-lifecycle.ts';
import { restoreAlert } from '../recovery/recovery-alerts.ts';
import type { Alerts } from '../notifications/alerts.ts';
import { DB_PASSWORD_AAD } from '../backup/task-spec.ts';
import type { CommandQueue } from '../agent-protocol/command-queue.ts';
import type { RestoreSpec, RestoreUpdateInput } from '../agent-protocol/wire.ts';

export type RestoreUpdate = RestoreUpdateInput;

import type { RecoveryMetrics } from '../metrics/recovery-metrics.ts';

interface Deps {
  orm: MikroORM;
  commandQueue: CommandQueue;
  restoreLogs: RecordLogHub;
  alerts: Alerts;
  recoveryMetrics: RecoveryMetrics;
  storageOpener: StorageTargetOpener;
  secretBox: SecretBox;
  databaseDrivers: ProviderRegistry<DatabaseDriverType>;
  ageKeys: AgeKeyPair;
  repositories: Repositories;
  agentRepositoryBridge: AgentRepositoryBridge;
}

const isTerminal = (r: RestoreRecord): boolean => TERMINAL_STATUSES.includes(r.status);

/**
 * The master's half of a restore on a node. Agents hold no private key, so the master reads a
 * stored copy, checks it (length, SHA-256, age authentication, decompression) and streams the
 * raw artifact; the agent writes it with the same restore code the master uses.
 */
export class RemoteRestores {
  readonly #deps: Deps;

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async #owned(em: EntityManager, nodeId: number, id: number): Promise<RestoreRecord> {
    const record = await em.findOne(RestoreRecordEntity, { id });
    if (!record) throw new AppError('RESTORE_RECORD_NOT_FOUND');
    if (record.nodeId !== nodeId) throw new AppError('AGENT_COMMAND_FORBIDDEN');
    return record;
  }

  async spec(nodeId: number, id: number): Promise<RestoreSpec> {
    const em = this.#deps.orm.em.fork();
    const record = await this.#owned(em, nodeId, id);
    if (isTerminal(record)) throw new AppError('AGENT_RECORD_TERMINAL');
    const backup = await em.findOne(BackupRecordEntity, { id: record.backupRecordId });
    if (!backup) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    let database: RestoreSpec['database'] = null;
    if (backup.type !== 'file') {
      const task = await em.findOne(BackupTaskEntity, { id: backup.taskId }, { populate: ['dbPassword'] });
      const driver = driverFor(this.#deps.databaseDrivers.list(), backup.type);
      if (!task || !driver)
        throw new AppError('RESTORE_SOURCE_INVALID', {
          message: 'The task or its database driver is gone; the connection is unknown.',
        });
      database = {
        type: backup.type,
        host: task.dbHost,
        port: task.dbPort,
        user: task.dbUser,
        path: task.dbPath,
        password: task.dbPassword ? this.#deps.secretBox.open(task.dbPassword, DB_PASSWORD_AAD) : '',
        target: restoreTargetOf(driver, task, record.targetDatabase),
        // Several databases in one artifact: which to restore (empty = all) and, for one, under what name.
        ...(isDumpArchive(backup.fileName)
          ? {
              archive: {
                databases: JSON.parse(record.selectedPaths) as string[],
                targetDatabase: record.targetDatabase,
              },
            }
          : {}),
      };
    }
    const base = backup.backupKind === 'differential' ? await baseOf(this.#deps, backup).catch(() => undefined) : null;
    if (base === undefined)
      throw new AppError('RESTORE_SOURCE_INVALID', {
        message: `The full backup this differential builds on (record ${backup.baseRecordId}) is gone.`,
      });
    return {
      restoreId: record.id,
      backupRecordId: backup.id,
      base: base && { backupRecordId: base.id, fileName: base.fileName, rawSize: base.rawSize },
      repository: backup.backupKind === 'repository' ? await this.#repository(em, backup, record.id) : null,
      type: backup.type,
      fileName: backup.fileName,
      rawSize: backup.rawSize,
      rawExtension: backup.fileName.split('.')[1] ?? '',
      targetPath: record.targetPath,
      selectedPaths: backup.type === 'file' ? (JSON.parse(record.selectedPaths) as string[]) : [],
      database,
    };
  }

  /** A repository record's snapshot for restic on the node: the first target holding it, through the bridge. */
  async #repository(em: EntityManager, backup: BackupRecord, restoreId: number): Promise<RestoreSpec['repository']> {
    const copy = await em.findOne(
      BackupRecordCopyEntity,
      { recordId: backup.id, status: 'success', snapshotId: { $ne: '' } },
      { orderBy: { id: 'asc' } },
    );
    if (!copy) throw new AppError('RESTORE_SOURCE_INVALID', { message: 'No repository holds this snapshot any more.' });
    const repository = await this.#deps.repositories.of(backup.taskId, copy.storageTargetId);
    return {
      path: this.#deps.agentRepositoryBridge.path(repository, 'restore', restoreId, copy.storageTargetId),
      password: this.#deps.repositories.password(repository),
      snapshotId: copy.snapshotId,
      targetName: copy.storageTargetName,
    };
  }

  /** The checked raw artifact; the stream errors (and the reply is cut) when any check fails. */
  async artifact(nodeId: number, id: number, part?: 'base'): Promise<{ stream: Readable; rawSize: number }> {
    const em = this.#deps.orm.em.fork();
    const record = await this.#owned(em, nodeId, id);
    if (isTerminal(record)) throw new AppError('AGENT_RECORD_TERMINAL');
    const restored = await em.findOne(BackupRecordEntity, { id: record.backupRecordId });
    if (!restored) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    if (part === 'base' && restored.backupKind !== 'differential')
      throw new AppError('RESTORE_SOURCE_INVALID', { message: 'Only a differential has a base to fetch.' });
    // A differential's agent fetches its full first (`part=base`), then the differential.
    const backup =
      part === 'base'
        ? await baseOf(this.#deps, restored).catch((err: unknown) => {
            throw new AppError('RESTORE_SOURCE_INVALID', { message: `${errorText(err)}.` });
          })
        : restored;
    await this.#deps.commandQueue.touch(nodeId, 'restore', id);
    // Coded like a download: the agent reports it and the restore fails with the reason.
    const copy = await openStoredCopy(this.#deps.orm, this.#deps.storageOpener, backup).catch((err: unknown) => {
      throw unreadableArtifact(err);
    });
    record.sourceTargetId = copy.targetId;
    record.sourceTargetName = copy.targetName;
    await em.flush();
    void this.#deps.restoreLogs.line(
      id,
      'info',
      `the master streams ${backup.fileName} from "${copy.targetName}" to the agent`,
    );
    // Intact copies are read first. A read that fails is cut before its last byte; when the
    // copy's bytes are to blame (decryption may fail before the checksum guard saw them all, so
    // the copy is read through once more to tell) it is marked corrupt first, so the agent's
    // next fetch reads the next copy.
    const raw = rawStream(copy, backup, this.#deps.ageKeys.identity);
    const out = new PassThrough();
    out.on('error', () => undefined);
    out.once('close', () => raw.destroy());
    raw.once('error', (err) => {
      void copyVerdict(this.#deps, backup, copy)
        .then((verdict) => {
          if (verdict?.state === 'corrupt')
            void this.#deps.restoreLogs.line(
              id,
              'error',
              `the copy on "${copy.targetName}" is corrupt (${verdict.why}); it is marked so, and the transfer to the agent was cut`,
            );
        })
        .finally(() => out.destroy(err));
    });
    raw.pipe(out);
    return { stream: out, rawSize: backup.rawSize };
  }

  async update(nodeId: number, id: number, u: RestoreUpdate): Promise<{ accepted: boolean; status: string }> {
    const { restoreLogs } = this.#deps;
    const em = this.#deps.orm.em.fork();
    const record = await this.#owned(em, nodeId, id);
    if (isTerminal(record)) return { accepted: false, status: record.status };
    if (!(await this.#deps.commandQueue.touch(nodeId, 'restore', id, record.status === 'queued')))
      return { accepted: false, status: record.status };
    if (record.status === 'queued') {
      record.status = 'running';
      record.startedAt = new Date();
      await em.flush();
      await restoreLogs.open(id, 'running');
    } else if (!restoreLogs.isLive(id)) await restoreLogs.open(id, 'running');
    for (const line of u.logs ?? []) void restoreLogs.line(id, line.level, line.message);
    if (u.bytes !== undefined) record.bytes = u.bytes;
    if (u.entries !== undefined) record.entries = u.entries;
    if (u.status === 'success' || u.status === 'failed') {
      await this.#settle(
        em,
        record,
        u.status,
        u.status === 'failed' ? (u.errorMessage ?? '').trim() || 'the agent reported a failure without a reason' : '',
      );
    } else await em.flush();
    return { accepted: true, status: record.status };
  }

  async #settle(em: EntityManager, record: RestoreRecord, status: 'success' | 'failed', reason: string): Promise<void> {
    await settleLifecycle(em, record, this.#deps.restoreLogs, status, reason);
    this.#deps.recoveryMetrics.observe('restore', record);
    await this.#deps.alerts.notify(restoreAlert(record));
  }

  async fail(id: number, reason: string): Promise<boolean> {
    const em = this.#deps.orm.em.fork();
    const record = await em.findOne(RestoreRecordEntity, { id });
    if (!record || isTerminal(record)) return false;
    if (!this.#deps.restoreLogs.isLive(id)) await this.#deps.restoreLogs.open(id, record.status);
    await this.#settle(em, record, 'failed', reason);
    return true;
  }
}
