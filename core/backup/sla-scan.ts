import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import { BackupTaskEntity } from '../db/entities/backup-task.ts';
import { BackupRecordEntity } from '../db/entities/backup-record.ts';
import { NodeEntity } from '../db/entities/node.ts';
import type { Alerts } from '../notifications/alerts.ts';

/** While a task stays in violation, it is announced again after this long (the reference's 6 h). */
const REPEAT_MS = 6 * 3600_000;

/**
 * The RPO watch: every enabled task with `slaHoursRpo` > 0 whose last successful backup is older
 * than that (or that never succeeded, counted from its creation) raises `sla_violation`, at most
 * once per task per 6 h while it lasts. Only `success` counts: a partial backup missed some of its
 * targets, so the recovery point it promises is not fully there.
 */
export class SlaScan {
  readonly #orm: MikroORM;
  readonly #alerts: Alerts;
  readonly #intervalSeconds: number;
  readonly #log: FastifyBaseLogger;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor({ orm, alerts, config, logger }: { orm: MikroORM; alerts: Alerts; config: { slaScanIntervalSeconds: number }; logger: FastifyBaseLogger }) {
    this.#orm = orm;
    this.#alerts = alerts;
    this.#intervalSeconds = config.slaScanIntervalSeconds;
    this.#log = logger;
  }

  start(): void {
    if (this.#intervalSeconds <= 0) return;
    const scan = () => void this.runOnce().catch((err: unknown) => this.#log.error({ err }, 'SLA scan failed'));
    this.#timer = setInterval(scan, this.#intervalSeconds * 1000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  /** One scan; resolves with how many violations it announced. */
  runOnce(now = new Date()): Promise<number> {
    this.#running ??= this.#scan(now).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #scan(now: Date): Promise<number> {
    const em = this.#orm.em.fork();
    const tasks = await em.find(BackupTaskEntity, { enabled: true, slaHoursRpo: { $gt: 0 } }, { fields: ['id', 'name', 'nodeId', 'slaHoursRpo', 'createdAt'] });
    let announced = 0;
    for (const task of tasks) {
      const last = await em.findOne(BackupRecordEntity, { taskId: task.id, status: 'success' }, { orderBy: { completedAt: 'desc' }, fields: ['completedAt'] });
      const since = last?.completedAt ?? task.createdAt;
      const hours = (now.getTime() - since.getTime()) / 3600_000;
      if (hours <= task.slaHoursRpo) continue;
      const node = task.nodeId ? await em.findOne(NodeEntity, { id: task.nodeId }, { fields: ['name'] }) : null;
      const neverSucceeded = !last;
      const raised = await this.#alerts.raiseOnce({
        type: 'sla_violation',
        subject: `task:${task.id}`,
        linkPath: `/api/backup/tasks/${task.id}`,
        title: `RPO missed: ${task.name}`,
        body: neverSucceeded
          ? `The task has never backed up successfully; its objective is a backup every ${task.slaHoursRpo} h.`
          : `The last successful backup is ${hours.toFixed(1)} h old; the objective is ${task.slaHoursRpo} h.`,
        fields: { taskId: task.id, taskName: task.name, nodeId: task.nodeId, nodeName: node?.name ?? (task.nodeId ? '' : 'master'), slaHoursRpo: task.slaHoursRpo, hoursSinceLastSuccess: Math.round(hours * 10) / 10, neverSucceeded },
      }, REPEAT_MS, now);
      if (raised) announced++;
    }
    return announced;
  }
}
