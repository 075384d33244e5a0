import { parseSchedule } from '../lib/schedule.ts';
import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import { BackupTaskEntity, type BackupTask } from '../db/entities/backup-task.ts';
import { AppError } from '../http/app-error.ts';
import { SYSTEM_ACTOR as SYSTEM, type AuditWriter } from '../events/audit-writer.ts';
import type { BackupMetrics } from '../metrics/backup-metrics.ts';
import type { BackupRuns, RunTrigger } from './backup-runs.ts';
import { scheduleTimeZone } from '../backup/time-zone.ts';
import type { VerifyService } from '../recovery/verify-service.ts';
import type { Clock } from '../lib/clock.ts';
import { CronTimer } from '../backup/cron-timer.ts';
import type { Cluster } from '../db/cluster.ts';
import { PeriodicPass } from '../lib/periodic-pass.ts';

/**
 * Cron for enabled tasks, read in the `timezone` setting (default: the server's zone). A fire
 * asks BackupRuns for a run, which refuses overlap and maintenance-window violations; those
 * fires are audited as `scheduled_skip`, never queued. After downtime each task gets at most
 * one catch-up run, however many fires it missed.
 *
 * Only the leading master schedules (core/db/cluster.ts; app.ts starts and stops this). A task
 * changed on another master reaches the leader as a notice (`sync`, `reload`), and each fire is
 * claimed in the database (`lastScheduledAt` moves forward once per fire time), so a fire is
 * run once even when two masters briefly both lead, or a new leader catches up on it.
 */
export class BackupScheduler {
  readonly #orm: MikroORM;
  readonly #runs: BackupRuns;
  readonly #audit: AuditWriter;
  readonly #metrics: BackupMetrics;
  readonly #log: FastifyBaseLogger;
  readonly #jobs = new Map<number, CronTimer>();
  readonly #verifyJobs = new Map<number, CronTimer>();
  readonly #clock: Clock;
  readonly #verifications: VerifyService;
  #timeZone = 'UTC';
  #started = false;
  readonly #cluster: Cluster;
  readonly #watcher = new PeriodicPass(
    () => this.checkSchedule(),
    (err: unknown) => this.#log.error({ err }, 'schedule check failed'),
  );
  #scheduleSeen = '';

  constructor({
    orm,
    backupRuns,
    audit,
    backupMetrics,
    logger,
    verifications,
    clock,
    cluster,
  }: {
    orm: MikroORM;
    backupRuns: BackupRuns;
    audit: AuditWriter;
    backupMetrics: BackupMetrics;
    logger: FastifyBaseLogger;
    verifications: VerifyService;
    clock: Clock;
    cluster: Cluster;
  }) {
    this.#cluster = cluster;
    // Changes made on other masters (on this one too: the notice comes back to its sender).
    if (cluster.shared) {
      cluster.listen('backplane_schedule', (payload) => {
        const work = payload === '*' ? this.#reloadHere() : this.#syncHere(Number(payload));
        void work.catch((err: unknown) =>
          this.#log.error({ err, payload }, 'schedule change from another master failed'),
        );
      });
    }
    this.#verifications = verifications;
    this.#clock = clock;
    this.#orm = orm;
    this.#runs = backupRuns;
    this.#audit = audit;
    this.#metrics = backupMetrics;
    this.#log = logger.child({ component: 'scheduler' });
  }

  get timeZone(): string {
    return this.#timeZone;
  }

  /** Schedules every enabled task and gives each one that missed a fire while down one catch-up run. */
  async start(now = this.#clock.now()): Promise<number[]> {
    this.#started = true;
    if (this.#cluster.shared) this.#watch();
    this.#timeZone = await scheduleTimeZone(this.#orm);
    const tasks = await this.#orm.em.fork().find(BackupTaskEntity, { enabled: true });
    const caughtUp: number[] = [];
    for (const task of tasks) {
      this.#schedule(task);
      if (task.cronExpr === '') continue;
      const missed = this.missedFire(task, now);
      if (missed) {
        caughtUp.push(task.id);
        await this.fire(task.id, 'catch_up', missed);
      }
    }
    return caughtUp;
  }

  /** The earliest fire time after the task's last activity that lies in the past, if any. */
  missedFire(task: BackupTask, now: Date): Date | undefined {
    const marks = [task.lastScheduledAt, task.lastRunAt, task.createdAt].filter((d): d is Date => d instanceof Date);
    const from = new Date(Math.max(...marks.map((d) => d.getTime())));
    try {
      const next = parseSchedule(task.cronExpr, this.#timeZone).nextRun(from);
      return next && next.getTime() <= now.getTime() ? next : undefined;
    } catch {
      return undefined;
    }
  }

  /** Re-reads one task after a change (create, update, toggle, delete), on whichever master leads. */
  async sync(taskId: number): Promise<void> {
    if (this.#cluster.shared) return this.#tell(String(taskId));
    return this.#syncHere(taskId);
  }

  /**
   * Tells the leader (this master too) that tasks changed. The change is saved already: a notice
   * that cannot be sent (no database session this moment) is logged, and the leader finds the
   * change at its next look at the tasks (#watch).
   */
  async #tell(payload: string): Promise<void> {
    await this.#cluster
      .notify('backplane_schedule', payload)
      .catch((err: unknown) =>
        this.#log.warn({ err, payload }, 'schedule change not announced; the leader reads it within a minute'),
      );
  }

  /** Several masters: every 30 s, the leader reloads when the tasks changed without a notice reaching it. */
  #watch(): void {
    this.#scheduleSeen = '';
    this.#watcher.start(30_000, { immediately: true });
  }

  /** One look (PostgreSQL): reloads when what the schedule is made of changed since the last look. */
  async checkSchedule(): Promise<boolean> {
    // What the schedule is made of, and nothing else (a run changes its task's row too).
    const [row] = await this.#orm.em
      .getConnection()
      .execute<{ schedule: string | null }[]>(
        "select md5(coalesce(string_agg(concat_ws(':', id, enabled, cron_expr, verify_enabled, verify_cron_expr), ',' order by id), '') " +
          "|| coalesce((select value from settings where key = 'timezone'), '')) as schedule from backup_tasks",
      );
    const now = row?.schedule ?? '';
    const changed = this.#scheduleSeen !== '' && now !== this.#scheduleSeen;
    this.#scheduleSeen = now;
    if (changed) await this.#reloadHere();
    return changed;
  }

  async #syncHere(taskId: number): Promise<void> {
    if (!this.#started) return;
    this.#unschedule(taskId);
    const task = await this.#orm.em.fork().findOne(BackupTaskEntity, { id: taskId });
    if (task?.enabled) this.#schedule(task);
  }

  /** Re-reads every task (the time zone changed), on whichever master leads. */
  async reload(): Promise<void> {
    if (this.#cluster.shared) return this.#tell('*');
    return this.#reloadHere();
  }

  async #reloadHere(): Promise<void> {
    if (!this.#started) return;
    for (const id of this.#scheduledTasks()) this.#unschedule(id);
    this.#timeZone = await scheduleTimeZone(this.#orm);
    const tasks = await this.#orm.em.fork().find(BackupTaskEntity, { enabled: true });
    for (const task of tasks) this.#schedule(task);
  }

  nextRun(taskId: number): Date | null {
    return this.#jobs.get(taskId)?.nextRun() ?? null;
  }

  stop(): void {
    this.#started = false;
    void this.#watcher.stop();
    for (const id of this.#scheduledTasks()) this.#unschedule(id);
  }

  /** Every task with a timer: a backup cron, a verification cron, or both. */
  #scheduledTasks(): number[] {
    return [...new Set([...this.#jobs.keys(), ...this.#verifyJobs.keys()])];
  }

  #schedule(task: BackupTask): void {
    if (task.verifyEnabled && task.verifyCronExpr !== '') {
      try {
        this.#verifyJobs.set(
          task.id,
          new CronTimer(task.verifyCronExpr, { timezone: this.#timeZone, clock: this.#clock }, () =>
            this.fireVerification(task.id),
          ),
        );
      } catch (err) {
        this.#log.error({ err, taskId: task.id }, 'verification schedule could not be created');
      }
    }
    if (task.cronExpr === '') return;
    try {
      const job = new CronTimer(task.cronExpr, { timezone: this.#timeZone, clock: this.#clock }, (at) =>
        this.fire(task.id, 'scheduled', at),
      );
      this.#jobs.set(task.id, job);
    } catch (err) {
      // Saved expressions are validated; one that the parser now refuses must not stop the others.
      this.#log.error({ err, taskId: task.id }, 'task schedule could not be created');
    }
  }

  #unschedule(taskId: number): void {
    this.#jobs.get(taskId)?.stop();
    this.#jobs.delete(taskId);
    this.#verifyJobs.get(taskId)?.stop();
    this.#verifyJobs.delete(taskId);
  }

  /** A scheduled verification of the task's newest successful record, in the task's mode. Never throws. */
  async fireVerification(taskId: number): Promise<void> {
    try {
      const task = await this.#orm.em.fork().findOne(BackupTaskEntity, { id: taskId });
      if (!task?.enabled || !task.verifyEnabled) return;
      const entry = {
        category: 'verify_record',
        targetType: 'backup_task',
        targetId: task.id,
        targetName: task.name,
      } as const;
      try {
        const record = await this.#verifications.requestForTask(
          task.id,
          task.verifyMode === 'deep' ? 'deep' : 'quick',
          'system',
        );
        await this.#audit.record(SYSTEM, {
          ...entry,
          action: 'scheduled_run',
          detail: `${record.mode} verification ${record.id} of backup record ${record.backupRecordId}`,
        });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await this.#audit.record(SYSTEM, { ...entry, action: 'scheduled_skip', detail: `${err.code}: ${err.message}` });
      }
    } catch (err) {
      this.#log.error({ err, taskId }, 'scheduled verification failed');
    }
  }

  /** One fire: records it on the task, then runs or audits why it did not. Never throws. */
  async fire(taskId: number, trigger: Extract<RunTrigger, 'scheduled' | 'catch_up'>, at: Date): Promise<void> {
    try {
      const em = this.#orm.em.fork();
      // The claim: one master moves the task's last fire forward to this fire time; a second
      // attempt on the same fire (another master that leads too, for a moment) changes nothing.
      const claimed = await em.nativeUpdate(
        BackupTaskEntity,
        { id: taskId, enabled: true, $or: [{ lastScheduledAt: null }, { lastScheduledAt: { $lt: at } }] },
        { lastScheduledAt: at },
      );
      if (claimed !== 1) return;
      const task = await em.findOne(BackupTaskEntity, { id: taskId });
      if (!task) return;
      const entry = {
        category: 'backup_task',
        targetType: 'backup_task',
        targetId: task.id,
        targetName: task.name,
      } as const;
      try {
        const record = await this.#runs.request(task.id, { trigger, triggeredBy: 'system' });
        await this.#audit.record(SYSTEM, {
          ...entry,
          action: trigger === 'catch_up' ? 'catch_up_run' : 'scheduled_run',
          detail: `record ${record.id}`,
        });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        this.#metrics.skipped.inc({ reason: err.code.toLowerCase() });
        await this.#audit.record(SYSTEM, { ...entry, action: 'scheduled_skip', detail: `${err.code}: ${err.message}` });
      }
    } catch (err) {
      this.#log.error({ err, taskId }, 'scheduled fire failed');
    }
  }
}
