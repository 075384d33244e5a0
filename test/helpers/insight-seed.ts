import type { EntityManager } from '@mikro-orm/core';
import { seededRandom } from './seeded-random.ts';
import { BackupTaskEntity } from '../../core/db/entities/backup-task.ts';
import {
  BackupRecordEntity,
  BackupRecordCopyEntity,
  type BackupRecord,
  type RecordStatus,
} from '../../core/db/entities/backup-record.ts';
import { VerifyRecordEntity } from '../../core/db/entities/recovery-records.ts';
import { StorageTargetEntity } from '../../core/db/entities/storage-target.ts';
import { NodeEntity } from '../../core/db/entities/node.ts';

/** A task as seeded, with the fields the expected figures are computed from. */
export interface SeedTask {
  id: number;
  name: string;
  type: string;
  enabled: boolean;
  nodeId: number;
  slaHoursRpo: number;
  rtoMinutes: number;
  createdAt: Date;
  encrypt: boolean;
}
export interface SeedRecord {
  id: number;
  taskId: number;
  nodeId: number;
  status: RecordStatus;
  startedAt: Date;
  completedAt: Date;
  fileSize: number;
  durationMs: number;
  targetId: number;
  fileName: string;
}
export interface SeedVerify {
  id: number;
  taskId: number;
  mode: 'quick' | 'deep';
  status: 'success' | 'failed';
  restoreMs: number | null;
  completedAt: Date;
}
export interface Seeded {
  tasks: SeedTask[];
  records: SeedRecord[];
  verifies: SeedVerify[];
  targets: { id: number; name: string }[];
  nodes: { id: number; name: string; agentVersion: string; lastSeenAt: Date | null }[];
}

const STATUSES: RecordStatus[] = ['success', 'success', 'success', 'success', 'failed', 'partial', 'running'];
const TYPES = ['file', 'postgresql', 'mysql', 'sqlite'];

/**
 * A history for the read models, written straight through the ORM (no runs): `tasks` tasks over
 * `nodes` remote nodes (and the master), `targets` targets, `records` records spread over the
 * last `days` days, and deep and quick verifications. Deterministic for a seed. Batched, so a
 * hundred thousand records take seconds.
 */
export async function seedHistory(
  em: EntityManager,
  options: {
    tasks: number;
    records: number;
    nodes: number;
    targets: number;
    days?: number;
    seed?: number;
    now?: Date;
    taskNames?: string[];
  },
): Promise<Seeded> {
  const rand = seededRandom(options.seed ?? 7);
  const now = options.now ?? new Date();
  const days = options.days ?? 60;
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)]!;

  const targets = [];
  for (let i = 0; i < options.targets; i++)
    targets.push(em.create(StorageTargetEntity, { name: `vault-${i + 1}`, type: 'local_disk', config: '{}' }));
  const nodes = [];
  for (let i = 0; i < options.nodes; i++) {
    nodes.push(
      em.create(NodeEntity, {
        name: `agent-${String(i + 1).padStart(3, '0')}`,
        hostname: `host-${i + 1}.example.test`,
        ipAddress: `10.0.0.${i + 1}`,
        agentVersion: i % 3 === 0 ? '0.0.9' : i % 3 === 1 ? '' : '0.1.0',
        lastSeenAt: i % 2 === 0 ? now : null,
      }),
    );
  }
  await em.flush();

  const tasks: SeedTask[] = [];
  const taskRows = [];
  for (let i = 0; i < options.tasks; i++) {
    const node = i % 4 === 0 || nodes.length === 0 ? 0 : nodes[i % nodes.length]!.id;
    const row = em.create(BackupTaskEntity, {
      name: options.taskNames?.[i] ?? `task-${String(i + 1).padStart(4, '0')}`,
      type: TYPES[i % TYPES.length]!,
      enabled: i % 7 !== 3,
      nodeId: node,
      cronExpr: '0 3 * * *',
      tags: i % 2 ? 'prod' : 'dev',
      slaHoursRpo: [0, 24, 48, 6][i % 4]!,
      rtoMinutes: [0, 30, 5][i % 3]!,
      encrypt: i % 5 !== 0,
      createdAt: new Date(now.getTime() - (days + 10) * 86_400_000),
    });
    taskRows.push(row);
  }
  await em.flush();
  for (const t of taskRows)
    tasks.push({
      id: t.id,
      name: t.name,
      type: t.type,
      enabled: t.enabled,
      nodeId: t.nodeId,
      slaHoursRpo: t.slaHoursRpo,
      rtoMinutes: t.rtoMinutes,
      createdAt: t.createdAt,
      encrypt: t.encrypt,
    });

  const records: SeedRecord[] = [];
  const running = new Set<number>();
  const BATCH = 2000;
  for (let done = 0; done < options.records; done += BATCH) {
    const batch: { row: BackupRecord; target: number }[] = [];
    for (let i = done; i < Math.min(options.records, done + BATCH); i++) {
      const task = pick(tasks);
      // Ascending start times, so ids grow with time as in a real history.
      const startedAt = new Date(
        now.getTime() - days * 86_400_000 + Math.floor(((i + rand()) / options.records) * days * 86_400_000),
      );
      // At most one running record per task, as the database allows (migration 019).
      let status = pick(STATUSES);
      if (status === 'running') {
        if (running.has(task.id)) status = 'failed';
        else running.add(task.id);
      }
      const durationMs = 1000 + Math.floor(rand() * 600_000);
      const fileSize = status === 'success' || status === 'partial' ? 1 + Math.floor(rand() * 5e8) : 0;
      const row = em.create(BackupRecordEntity, {
        taskId: task.id,
        taskName: task.name,
        type: task.type,
        nodeId: task.nodeId,
        status,
        startedAt,
        completedAt: status === 'running' ? null : new Date(startedAt.getTime() + durationMs),
        durationMs: status === 'running' ? 0 : durationMs,
        fileSize,
        fileName: `${task.name}-${startedAt.toISOString().slice(0, 19).replace(/[-:T]/g, '')}.tar.zst.age`,
        storagePath: `backups/${task.name}/${i}`,
      });
      batch.push({ row, target: pick(targets).id });
    }
    await em.flush();
    for (const { row, target } of batch) {
      if (row.status === 'success' || row.status === 'partial')
        em.create(BackupRecordCopyEntity, {
          recordId: row.id,
          storageTargetId: target,
          storageTargetName: targets.find((t) => t.id === target)!.name,
          status: 'success',
          fileSize: row.fileSize,
        });
      records.push({
        id: row.id,
        taskId: row.taskId,
        nodeId: row.nodeId,
        status: row.status,
        startedAt: row.startedAt!,
        completedAt: row.completedAt ?? row.startedAt!,
        fileSize: row.fileSize,
        durationMs: row.durationMs,
        targetId: target,
        fileName: row.fileName,
      });
    }
    await em.flush();
    em.clear();
  }

  const verifies: SeedVerify[] = [];
  for (const task of tasks) {
    // Some tasks measured recently, some long ago, some never.
    for (const [ageDays, mode] of [
      [45, 'deep'],
      [rand() * 20, 'deep'],
      [1, 'quick'],
    ] as const) {
      if (rand() < 0.3) continue;
      const completedAt = new Date(now.getTime() - ageDays * 86_400_000);
      const status = rand() < 0.8 ? 'success' : 'failed';
      const restoreMs = mode === 'deep' && status === 'success' ? Math.floor(rand() * 60 * 60_000) : null;
      const rec = records.find((r) => r.taskId === task.id);
      const row = em.create(VerifyRecordEntity, {
        backupRecordId: rec?.id ?? 0,
        taskId: task.id,
        taskName: task.name,
        type: task.type,
        mode,
        status,
        restoreMs,
        startedAt: completedAt,
        completedAt,
      });
      await em.flush();
      verifies.push({ id: row.id, taskId: task.id, mode, status, restoreMs, completedAt });
    }
  }
  return {
    tasks,
    records,
    verifies,
    targets: targets.map((t) => ({ id: t.id, name: t.name })),
    nodes: nodes.map((n) => ({
      id: n.id,
      name: n.name,
      agentVersion: n.agentVersion,
      lastSeenAt: n.lastSeenAt ?? null,
    })),
  };
}
