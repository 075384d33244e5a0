import type { MikroORM } from '@mikro-orm/core';
import { PeriodicPass } from '../lib/periodic-pass.ts';
import type { FastifyBaseLogger } from 'fastify';
import { BackupTaskEntity, type BackupTask } from '../db/entities/backup-task.ts';
import { NodeEntity } from '../db/entities/node.ts';
import type { Alerts } from '../notifications/alerts.ts';
import { taskEvidence, evidenceOf, rtoStatus, type TaskEvidence } from '../insight/task-evidence.ts';

/** While a task stays in violation, it is announced again after this long (the reference's 6 h). */
const REPEAT_MS = 6 * 3600_000;

/**
 * The SLA watch, every 15 minutes by default. RPO: every enabled task with `slaHoursRpo` > 0
 * whose last successful backup is older than that (or that never succeeded, counted from its
 * creation) raises `sla_violation`. RTO: every enabled task with `rtoMinutes` > 0 whose latest
 * recent deep verification measured a slower restore raises `rto_exceeded` (the verification
 * itself raised it when it measured; the scan repeats it while it lasts). Each at most once per
 * task per 6 h. Only `success` counts for the RPO: a partial backup missed some of its targets,
 * so the recovery point it promises is not fully there. The evidence is the dashboard's
 * (core/insight/task-evidence.ts), so the scan and the SLA page never disagree.
 */
export class SlaScan {
  readonly #orm: MikroORM;
  readonly #alerts: Alerts;
  readonly #config: { slaScanIntervalSeconds: number; rtoEvidenceMaxAgeSeconds: number };
  readonly #log: FastifyBaseLogger;
  readonly #periodic: PeriodicPass<number>;

  constructor({
    orm,
    alerts,
    config,
    logger,
  }: {
    orm: MikroORM;
    alerts: Alerts;
    config: { slaScanIntervalSeconds: number; rtoEvidenceMaxAgeSeconds: number };
    logger: FastifyBaseLogger;
  }) {
    this.#orm = orm;
    this.#alerts = alerts;
    this.#config = config;
    this.#log = logger;
    this.#periodic = new PeriodicPass(
      (now) => this.#scan(now),
      (err: unknown) => this.#log.error({ err }, 'SLA scan failed'),
    );
  }

  start(): void {
    if (this.#config.slaScanIntervalSeconds > 0) this.#periodic.start(this.#config.slaScanIntervalSeconds * 1000);
  }

  async stop(): Promise<void> {
    await this.#periodic.stop();
  }

  /** One scan; resolves with how many alerts it announced. */
  runOnce(now = new Date()): Promise<number> {
    return this.#periodic.runOnce(now);
  }

  async #scan(now: Date): Promise<number> {
    const em = this.#orm.em.fork();
    const tasks = await em.find(
      BackupTaskEntity,
      { enabled: true, $or: [{ slaHoursRpo: { $gt: 0 } }, { rtoMinutes: { $gt: 0 } }] },
      { fields: ['id', 'name', 'nodeId', 'slaHoursRpo', 'rtoMinutes', 'createdAt'] },
    );
    if (tasks.length === 0) return 0;
    const evidence = await taskEvidence(em);
    const nodes = new Map((await em.find(NodeEntity, {}, { fields: ['id', 'name'] })).map((n) => [n.id, n.name]));
    let announced = 0;
    for (const task of tasks) {
      const e = evidenceOf(evidence, task.id);
      if (task.slaHoursRpo > 0 && (await this.#rpo(task, e, nodes, now))) announced++;
      if (task.rtoMinutes > 0 && (await this.#rto(task, e, now))) announced++;
    }
    return announced;
  }

  async #rpo(
    task: Pick<BackupTask, 'id' | 'name' | 'nodeId' | 'slaHoursRpo' | 'createdAt'>,
    e: TaskEvidence,
    nodes: Map<number, string>,
    now: Date,
  ): Promise<boolean> {
    const hours = (now.getTime() - (e.lastSuccessAt ?? task.createdAt).getTime()) / 3600_000;
    if (hours <= task.slaHoursRpo) return false;
    const neverSucceeded = !e.lastSuccessAt;
    return this.#alerts.raiseOnce(
      {
        type: 'sla_violation',
        subject: `task:${task.id}`,
        linkPath: `/api/backup/tasks/${task.id}`,
        title: `RPO missed: ${task.name}`,
        body: neverSucceeded
          ? `The task has never backed up successfully; its objective is a backup every ${task.slaHoursRpo} h.`
          : `The last successful backup is ${hours.toFixed(1)} h old; the objective is ${task.slaHoursRpo} h.`,
        fields: {
          taskId: task.id,
          taskName: task.name,
          nodeId: task.nodeId,
          nodeName: nodes.get(task.nodeId) ?? (task.nodeId ? '' : 'master'),
          slaHoursRpo: task.slaHoursRpo,
          hoursSinceLastSuccess: Math.round(hours * 10) / 10,
          neverSucceeded,
        },
      },
      REPEAT_MS,
      now,
    );
  }

  async #rto(task: Pick<BackupTask, 'id' | 'name' | 'rtoMinutes'>, e: TaskEvidence, now: Date): Promise<boolean> {
    const rto = rtoStatus(task.rtoMinutes, e, this.#config.rtoEvidenceMaxAgeSeconds * 1000, now);
    if (rto.status !== 'exceeded') return false;
    return this.#alerts.raiseOnce(
      {
        type: 'rto_exceeded',
        subject: `task:${task.id}`,
        linkPath: `/api/verify/records/${rto.verifyRecordId}`,
        title: `RTO exceeded: ${task.name}`,
        body: `The latest deep verification restored the backup in ${rto.measuredMinutes} minutes; the objective is ${task.rtoMinutes} minutes.`,
        fields: {
          taskId: task.id,
          taskName: task.name,
          verifyId: rto.verifyRecordId,
          rtoMinutes: task.rtoMinutes,
          measuredMinutes: rto.measuredMinutes,
        },
      },
      REPEAT_MS,
      now,
    );
  }
}
