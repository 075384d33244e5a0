import type { FastifyBaseLogger } from 'fastify';
import type { Cluster } from '../db/cluster.ts';
import { PeriodicPass } from '../lib/periodic-pass.ts';
import type { BackupRuns } from './backup-runs.ts';
import type { RestoreService } from '../recovery/restore-service.ts';
import type { VerifyService } from '../recovery/verify-service.ts';
import type { ReplicationService } from '../recovery/replication-service.ts';

/** How often the leader looks for masters that died (several masters on PostgreSQL). */
export const DEAD_MASTER_PASS_MS = 5000;

/**
 * The leader settles what dead masters left: records they ran become failed (what their runs
 * stored is removed), backups they had queued are queued here. A master is dead when it no longer
 * holds its alive lock (core/db/pg-cluster.ts).
 *
 * One master on SQLite: the first pass, at start, settles everything earlier processes left
 * (start-up recovery). Several masters: a master missing from `liveMasters` is given one pass of
 * grace (at least DEAD_MASTER_PASS_MS) — a master whose session broke stops its own runs when it
 * notices, within its check interval, so the leader never fails a run that is still writing — and
 * a new leader's first pass only looks (it has seen no master alive yet).
 */
export class DeadMasters {
  readonly #cluster: Cluster;
  readonly #runs: BackupRuns;
  readonly #restores: RestoreService;
  readonly #verifications: VerifyService;
  readonly #replications: ReplicationService;
  readonly #log: FastifyBaseLogger;
  /** Alive at the previous pass; undefined before the first. */
  #seen: number[] | undefined;
  readonly #periodic: PeriodicPass<void>;

  constructor({
    cluster,
    backupRuns,
    restores,
    verifications,
    replications,
    logger,
  }: {
    cluster: Cluster;
    backupRuns: BackupRuns;
    restores: RestoreService;
    verifications: VerifyService;
    replications: ReplicationService;
    logger: FastifyBaseLogger;
  }) {
    this.#cluster = cluster;
    this.#runs = backupRuns;
    this.#restores = restores;
    this.#verifications = verifications;
    this.#replications = replications;
    this.#log = logger.child({ component: 'dead-masters' });
    this.#periodic = new PeriodicPass(
      () => this.#pass(),
      (err: unknown) => this.#log.error({ err }, 'settling what dead masters left failed'),
    );
  }

  /** Leading from now on: a first pass, then one every DEAD_MASTER_PASS_MS while several masters may share the database. */
  async start(): Promise<void> {
    this.#seen = undefined;
    await this.#periodic
      .runOnce()
      .catch((err: unknown) => this.#log.error({ err }, 'settling what dead masters left failed'));
    if (this.#cluster.shared) this.#periodic.start(DEAD_MASTER_PASS_MS);
  }

  stop(): Promise<void> {
    return this.#periodic.stop();
  }

  async #pass(): Promise<void> {
    const live = await this.#cluster.liveMasters();
    const seen = this.#seen;
    this.#seen = live;
    if (this.#cluster.shared && seen === undefined) return;
    // Alive at the last pass and missing now: one pass of grace.
    const spared = (seen ?? []).filter((id) => !live.includes(id));
    const keep = [...live, ...spared];
    // Order matters: settle recovery work before backups, as start-up always did.
    const restores = await this.#restores.recover(keep);
    const verifications = await this.#verifications.recover(keep);
    const replications = await this.#replications.recover(keep);
    const backups = await this.#runs.recover(keep);
    if (restores + verifications + replications + backups.failed + backups.requeued > 0) {
      this.#log.warn(
        { live, restores, verifications, replications, ...backups },
        'settled what stopped masters left: their runs failed, their queued backups queued here',
      );
    }
  }
}
