import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import type { Config } from '../config/config.ts';
import { RepositoryEntity, type Repository } from '../db/entities/repository.ts';
import type { StorageTarget } from '../db/entities/storage-target.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import { Restic, type ResticError, startLoopbackBridge } from '../engine/index.ts';

/**
 * The restic repositories of repository-mode tasks (docs/repositories.md): one per task and
 * target, under `repositories/task-<id>` on the target, in restic's own layout so the stock
 * `restic` opens it. restic reaches the target through the REST bridge on loopback
 * (core/engine/repository/), so every storage type holds repositories with no code of its own.
 * Each repository's password is random, generated here, sealed in the database, and handed to
 * restic on a descriptor only (core/engine/repository/restic-process.ts).
 */

export interface OpenRepository {
  restic: Restic;
  repository: Repository;
  /** A snapshot's full id from its short one, read from the storage (no restic process). */
  resolveSnapshotId(shortId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export class Repositories {
  readonly #orm: MikroORM;
  readonly #secretBox: SecretBox;
  readonly #opener: StorageTargetOpener;
  readonly #cacheDir: string;
  readonly #lockWaitMs: number;
  /** Repositories this process saw initialised: the check (a restic process) is paid once per repository. */
  readonly #initialised = new Set<number>();

  constructor(deps: { orm: MikroORM; secretBox: SecretBox; storageOpener: StorageTargetOpener; config: Config }) {
    this.#orm = deps.orm;
    this.#secretBox = deps.secretBox;
    this.#opener = deps.storageOpener;
    this.#cacheDir = join(deps.config.dataDir, 'restic-cache');
    this.#lockWaitMs = deps.config.repositoryLockWaitSeconds * 1000;
  }

  /** How long an operation waits for a repository another restic holds locked (nodes are told it too). */
  get lockWaitSeconds(): number {
    return this.#lockWaitMs / 1000;
  }

  /** The repository of a task on a target, made (row and password) on first use. */
  async of(taskId: number, storageTargetId: number): Promise<Repository> {
    const em = this.#orm.em.fork();
    const found = await em.findOne(RepositoryEntity, { taskId, storageTargetId }, { populate: ['sealedPassword'] });
    if (found) return found;
    const repository = em.create(RepositoryEntity, {
      taskId,
      storageTargetId,
      prefix: repositoryFolder(taskId),
      sealedPassword: '',
    });
    await em.flush();
    repository.sealedPassword = this.#secretBox.seal(
      randomBytes(32).toString('base64url'),
      repositoryPasswordAad(repository.id),
    );
    await em.flush();
    return repository;
  }

  /** The repository's password, for restic and for an admin's stock restore (scripts/repository-password.ts). */
  password(repository: Repository): string {
    return this.#secretBox.open(repository.sealedPassword, repositoryPasswordAad(repository.id));
  }

  /**
   * Opens a repository for restic: the target's storage behind a bridge on loopback with a
   * random token. `init` creates the repository when the target holds none yet. An operation
   * that finds the repository locked by another restic waits up to `repositoryLockWaitSeconds`,
   * telling `onLockWait`.
   */
  async open(
    repository: Repository,
    target: StorageTarget,
    options: { signal?: AbortSignal; init?: boolean; onLockWait?: (err: ResticError, waitMs: number) => void } = {},
  ): Promise<OpenRepository> {
    const storage = await this.#opener.open(target);
    let bridge: Awaited<ReturnType<typeof startLoopbackBridge>> | undefined;
    try {
      bridge = await startLoopbackBridge({
        storage,
        prefix: repository.prefix,
        appendOnly: false,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const restic = new Restic({
        repository: bridge.url,
        password: this.password(repository),
        cacheDir: this.#cacheDir,
        lockWaitMs: this.#lockWaitMs,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onLockWait ? { onLockWait: options.onLockWait } : {}),
      });
      if (options.init && !this.#initialised.has(repository.id)) {
        if (!(await restic.isInitialised())) await restic.init();
        this.#initialised.add(repository.id);
      }
      const opened = bridge;
      return {
        restic,
        repository,
        resolveSnapshotId: async (shortId) => {
          const found: string[] = [];
          for await (const object of storage.list(`${repository.prefix}/snapshots/`)) {
            const id = object.key.slice(object.key.lastIndexOf('/') + 1);
            if (/^[0-9a-f]{64}$/.test(id) && id.startsWith(shortId)) found.push(id);
          }
          // Two snapshots sharing the short id: restic is asked instead.
          return found.length === 1 ? found[0] : undefined;
        },
        close: async () => {
          await opened.close();
          await storage.close?.();
        },
      };
    } catch (err) {
      await bridge?.close();
      await storage.close?.();
      throw err;
    }
  }

  /**
   * What a stopped, failed or deleted run leaves in a repository goes: its snapshot, if it made one,
   * is forgotten (and the repository marked for pruning, which frees packs nothing references,
   * those of an interrupted run included), and stale locks of a killed restic are cleared. A
   * repository's folder is never deleted as an object.
   */
  async release(taskId: number, target: StorageTarget, snapshotId: string): Promise<void> {
    const repository = await this.#orm.em
      .fork()
      .findOne(RepositoryEntity, { taskId, storageTargetId: target.id }, { populate: ['sealedPassword'] });
    if (!repository) return; // never made: nothing of it exists
    const opened = await this.open(repository, target);
    try {
      await opened.restic.unlock();
      if (snapshotId !== '') await opened.restic.forget([snapshotId]);
    } finally {
      await opened.close();
    }
    await this.requestPrune(repository.id);
  }

  /** Asks the leader to prune a repository (a snapshot of it was forgotten). */
  async requestPrune(repositoryId: number): Promise<void> {
    await this.#orm.em.fork().nativeUpdate(RepositoryEntity, { id: repositoryId }, { pruneRequestedAt: new Date() });
  }
}

/** The folder of a task's repository on each of its targets. */
export function repositoryFolder(taskId: number): string {
  return `repositories/task-${taskId}`;
}

/** What a repository's sealed password is bound to (SecretBox's associated data). */
export function repositoryPasswordAad(repositoryId: number): string {
  return `repository-password:${repositoryId}`;
}
