import { posix, win32 } from 'node:path';
import type { EntityManager } from '@mikro-orm/core';
import { scheduleError } from '../../lib/schedule.ts';
import { BackupTaskEntity } from '../../db/entities/backup-task.ts';
import { StorageTargetEntity } from '../../db/entities/storage-target.ts';
import { NodeEntity } from '../../db/entities/node.ts';
import type { DatabaseDriverType } from '@backplane/plugin-api';
import { AppError } from '../../http/app-error.ts';
import { validateConfig } from '../../plugin-host/provider-config.ts';
import { driverFor, databaseListProblem } from '../../engine/index.ts';
import { parseMaintenanceWindows } from '../../backup/maintenance-window.ts';
import { jsonList } from './backup-task-view.ts';
import type { Draft } from './task-draft.ts';

/**
 * The rules a backup task must meet, each group its own function; every failure is collected
 * (with the field's path) so one 400 BACKUP_TASK_INVALID lists them all.
 */

export type Detail = { path: string; message: string };
type Fail = (path: string, message: string) => void;

const COMPRESSIONS = ['zstd', 'gzip', 'none'];
const VERIFY_MODES = ['quick', 'deep'];
const MAX_DEPENDENCY_DEPTH = 64;
/** The longest run time limit a task may set: a week. */
export const MAX_TIMEOUT_MINUTES = 10_080;

/**
 * Every rule at once. `type` is the canonical task type (undefined when unknown); on success
 * the draft carries it. Returns the failures (empty when the task is valid).
 */
export async function validateTask(
  em: EntityManager,
  d: Draft,
  selfId: number | undefined,
  ctx: { type: string | undefined; drivers: DatabaseDriverType[] },
): Promise<Detail[]> {
  const details: Detail[] = [];
  const fail: Fail = (path, message) => details.push({ path, message });
  const { type, drivers } = ctx;

  if (d.name === '') fail('name', 'must not be blank');
  if (!type)
    fail(
      'type',
      `unknown task type "${d.type}"; known: ` +
        ['file', ...drivers.flatMap((x) => [x.type, ...(x.aliases ?? [])])]
          .filter((v, i, a) => a.indexOf(v) === i)
          .join(', '),
    );
  else d.type = type;

  checkSchedule(d, fail);
  if (type === 'file') checkFileSource(d, fail);
  else if (type) checkConnection(d, driverFor(drivers, type)!, fail);
  checkLimits(d, fail);
  checkMaintenanceWindows(d, fail);
  await checkTargets(em, d, fail);
  await checkPlacement(em, d, fail);
  if (d.dependsOnTaskIds.length > 0) await checkDependencies(em, d.dependsOnTaskIds, selfId, fail);
  return details;
}

/** Cron expressions, verification and compression. */
function checkSchedule(d: Draft, fail: Fail): void {
  if (d.cronExpr !== '') {
    const err = scheduleError(d.cronExpr);
    if (err) fail('cronExpr', `invalid cron expression: ${err}`);
  }
  if (d.verifyCronExpr !== '') {
    const err = scheduleError(d.verifyCronExpr);
    if (err) fail('verifyCronExpr', `invalid cron expression: ${err}`);
  } else if (d.verifyEnabled) {
    fail('verifyCronExpr', 'is required when verifyEnabled is true');
  }
  if (!VERIFY_MODES.includes(d.verifyMode)) fail('verifyMode', `must be one of ${VERIFY_MODES.join(', ')}`);
  if (!COMPRESSIONS.includes(d.compression)) fail('compression', `must be one of ${COMPRESSIONS.join(', ')}`);
}

function checkFileSource(d: Draft, fail: Fail): void {
  if (d.sourcePaths.length === 0) fail('sourcePaths', 'a file task needs at least one source path');
  d.sourcePaths.forEach((p, i) => {
    if (p.includes('\0') || !(posix.isAbsolute(p) || win32.isAbsolute(p)))
      fail(`sourcePaths/${i}`, 'must be an absolute path');
  });
}

/** The connection fields a driver's schema declares, checked by that schema; a database name when it has one. */
function checkConnection(d: Draft, driver: DatabaseDriverType, fail: Fail): void {
  const props = (driver.configSchema as { properties?: Record<string, unknown> }).properties ?? {};
  const fields: Record<string, keyof Draft> = { host: 'dbHost', port: 'dbPort', user: 'dbUser', path: 'dbPath' };
  const conn: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    const value = d[field];
    if (key in props && value !== '' && value !== 0) conn[key] = value;
  }
  if ('path' in props && d.dbPath !== '' && !(posix.isAbsolute(d.dbPath) || win32.isAbsolute(d.dbPath)))
    fail('dbPath', 'must be an absolute path');
  const names = driver.databaseNames === 'none' ? undefined : databaseListProblem(d.dbName);
  if (names) fail('dbName', names);
  try {
    validateConfig(driver, conn, 'BACKUP_TASK_INVALID');
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    for (const detail of (err.details ?? []) as Detail[]) {
      const key = detail.path.replace(/^config\/?/, '').split('/')[0] ?? '';
      fail(fields[key] ?? (key || 'type'), detail.message);
    }
  }
}

/** Retention, time limits, alerting and tags. */
function checkLimits(d: Draft, fail: Fail): void {
  for (const key of [
    'retentionDays',
    'maxBackups',
    'keepDaily',
    'keepWeekly',
    'keepMonthly',
    'keepYearly',
    'slaHoursRpo',
    'rtoMinutes',
  ] as const) {
    if (d[key] < 0) fail(key, 'must be 0 or more');
  }
  if (d.timeoutMinutes < 0 || d.timeoutMinutes > MAX_TIMEOUT_MINUTES)
    fail('timeoutMinutes', `must be 0 (no limit) to ${MAX_TIMEOUT_MINUTES} (a week)`);
  if (d.alertOnConsecutiveFails < 1) fail('alertOnConsecutiveFails', 'must be 1 or more');
  if (d.diffFullIntervalDays < 1) fail('diffFullIntervalDays', 'must be 1 or more (0 = the default, 7)');
  const tags = d.tags.join(',');
  if (tags.length > 500) fail('tags', 'at most 500 characters in all');
  d.tags.forEach((t, i) => {
    if (t.length > 64) fail(`tags/${i}`, 'at most 64 characters');
  });
}

function checkMaintenanceWindows(d: Draft, fail: Fail): void {
  if (d.maintenanceWindows !== '') {
    try {
      parseMaintenanceWindows(d.maintenanceWindows);
    } catch (err) {
      fail('maintenanceWindows', (err as Error).message);
    }
  }
}

/** Storage and replication targets exist; a replication target is not also a backup target. */
async function checkTargets(em: EntityManager, d: Draft, fail: Fail): Promise<void> {
  if (d.storageTargetIds.length === 0) fail('storageTargetIds', 'at least one storage target is required');
  else {
    const found = new Set(
      (await em.find(StorageTargetEntity, { id: { $in: d.storageTargetIds } }, { fields: ['id'] })).map((t) => t.id),
    );
    d.storageTargetIds.forEach((id, i) => {
      if (!found.has(id)) fail(`storageTargetIds/${i}`, `storage target ${id} does not exist`);
    });
  }
  if (d.replicationTargetIds.length > 0) {
    const found = new Set(
      (await em.find(StorageTargetEntity, { id: { $in: d.replicationTargetIds } }, { fields: ['id'] })).map(
        (t) => t.id,
      ),
    );
    d.replicationTargetIds.forEach((id, i) => {
      if (!found.has(id)) fail(`replicationTargetIds/${i}`, `storage target ${id} does not exist`);
      else if (d.storageTargetIds.includes(id))
        fail(`replicationTargetIds/${i}`, `storage target ${id} already receives every backup`);
    });
  }
}

/** Where the task runs: the master, one existing node, or a label pool. */
async function checkPlacement(em: EntityManager, d: Draft, fail: Fail): Promise<void> {
  if (d.nodeId !== 0 && !(await em.findOne(NodeEntity, { id: d.nodeId }, { fields: ['id'] })))
    fail('nodeId', `node ${d.nodeId} does not exist (0 = master)`);
  if (d.nodeLabel !== '' && !/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/.test(d.nodeLabel))
    fail('nodeLabel', 'must be a node label (letters, digits, _ . : -)');
  if (d.nodeLabel !== '' && d.nodeId !== 0)
    fail('nodeLabel', 'a task runs on one node (nodeId) or on a label pool (nodeLabel), not both');
}

async function checkDependencies(
  em: EntityManager,
  deps: number[],
  selfId: number | undefined,
  fail: Fail,
): Promise<void> {
  const all = await em.find(BackupTaskEntity, {}, { fields: ['id', 'dependsOnTaskIds'] });
  const graph = new Map(all.map((t) => [t.id, jsonList<number>(t.dependsOnTaskIds)]));
  deps.forEach((id, i) => {
    if (id === selfId) fail(`dependsOnTaskIds/${i}`, 'a task cannot depend on itself');
    else if (!graph.has(id)) fail(`dependsOnTaskIds/${i}`, `task ${id} does not exist`);
  });
  if (selfId === undefined) return; // nothing can depend on a task that does not exist yet
  graph.set(selfId, deps);
  // A cycle through this task exists when one of its dependencies leads back to it.
  const seen = new Set<number>();
  const reaches = (id: number, depth: number): boolean => {
    if (id === selfId) return true;
    if (seen.has(id) || depth > MAX_DEPENDENCY_DEPTH) return false;
    seen.add(id);
    return (graph.get(id) ?? []).some((next) => reaches(next, depth + 1));
  };
  if (deps.some((id) => id !== selfId && reaches(id, 1))) fail('dependsOnTaskIds', 'the dependencies form a cycle');
}
