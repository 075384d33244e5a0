import type { EntityManager } from '@mikro-orm/core';
import { recordedUsage, heldCopies } from '../../storage/target-usage.ts';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { StorageTargetEntity, type StorageTarget } from '../../db/entities/storage-target.ts';
import { BackupTaskTargetEntity } from '../../db/entities/backup-task.ts';
import type { TestResult } from '@backplane/plugin-api';
import { AppError } from '../../http/app-error.ts';
import { StorageTargetOpener, providerFailure, trimReason } from '../../storage/target-opener.ts';
import { configIssues, splitSecrets, mergeSecrets, configError } from '../../plugin-host/provider-config.ts';
import { fromAliases, aliasIssues } from '../../plugin-host/config-aliases.ts';
import { masterRelayChoice } from '../../storage/master-relay.ts';
import type { TargetInput, TargetTestInput, TargetUpdate } from './storage-target-schemas.ts';
import { testInstance } from '../../storage/target-test.ts';

export class StorageTargetService {
  readonly #em: EntityManager;
  readonly #opener: StorageTargetOpener;

  constructor({ em, storageOpener }: { em: EntityManager; storageOpener: StorageTargetOpener }) {
    this.#em = em;
    this.#opener = storageOpener;
  }

  get opener(): StorageTargetOpener {
    return this.#opener;
  }

  async list(page: { limit: number; offset: number }): Promise<[StorageTarget[], number]> {
    return this.#em.findAndCount(
      StorageTargetEntity,
      {},
      { orderBy: { starred: 'desc', name: 'asc' }, limit: page.limit, offset: page.offset },
    );
  }

  async get(id: number): Promise<StorageTarget> {
    const target = await this.#em.findOne(StorageTargetEntity, { id }, { populate: ['secrets'] });
    if (!target) throw new AppError('STORAGE_TARGET_NOT_FOUND');
    return target;
  }

  storedSecretKeys(target: StorageTarget): string[] {
    return Object.entries(this.#opener.secretsOf(target))
      .filter(([, v]) => v !== '' && v !== undefined && v !== null)
      .map(([k]) => k);
  }

  /**
   * Validates an input (the aliases its type declares translated to the type's own names, secrets sent masked or empty
   * taken from `stored`) and returns its full config, and `agentDirectUpload` when the input
   * decides it (directly or as local_disk's `masterRelay`).
   */
  resolveInput(
    input: TargetInput,
    stored?: StorageTarget,
  ): { config: Record<string, unknown>; agentDirectUpload?: boolean } {
    const type = this.#opener.type(input.type);
    const incoming = { ...input.config };
    const agentDirectUpload = masterRelayChoice(
      type.type,
      incoming,
      input.agentDirectUpload,
      stored?.agentDirectUpload,
    );
    const { config, aliased, issues } = fromAliases(
      type,
      incoming,
      stored ? this.#opener.fullConfig(stored) : undefined,
    );
    const merged = stored ? mergeSecrets(type, config, this.#opener.secretsOf(stored)) : config;
    const invalid = configIssues(type, merged);
    // Issues name the fields the client sent: the aliases when it wrote them.
    const all = [...issues, ...(aliased ? aliasIssues(type, invalid) : invalid)];
    if (all.length > 0) throw configError(type.type, all);
    return { config: merged, agentDirectUpload };
  }

  async create(input: TargetInput, extraSecrets: Record<string, unknown> = {}): Promise<StorageTarget> {
    const type = this.#opener.type(input.type);
    const resolved = this.resolveInput(input);
    const { plain, secrets } = splitSecrets(type, { ...resolved.config, ...extraSecrets });
    const target = this.#em.create(StorageTargetEntity, {
      name: input.name,
      type: input.type,
      description: input.description ?? '',
      enabled: input.enabled ?? true,
      starred: false,
      config: JSON.stringify(plain),
      secrets: this.#opener.sealSecrets(secrets),
      agentDirectUpload: resolved.agentDirectUpload ?? false,
      quotaBytes: input.quotaBytes ?? 0,
    });
    await this.#flushUnique();
    return target;
  }

  async update(id: number, input: TargetUpdate, extraSecrets: Record<string, unknown> = {}): Promise<StorageTarget> {
    const target = await this.get(id);
    if (input.type !== undefined && input.type !== target.type) throw new AppError('STORAGE_TARGET_TYPE_IMMUTABLE');
    const type = this.#opener.type(target.type);
    let agentDirectUpload = input.agentDirectUpload;
    if (input.config !== undefined || Object.keys(extraSecrets).length > 0) {
      const resolved = this.resolveInput(
        { name: target.name, type: target.type, config: input.config ?? this.#publicConfig(target), agentDirectUpload },
        target,
      );
      const { plain, secrets } = splitSecrets(type, { ...resolved.config, ...extraSecrets });
      target.config = JSON.stringify(plain);
      target.secrets = this.#opener.sealSecrets(secrets);
      agentDirectUpload = resolved.agentDirectUpload;
    }
    if (input.name !== undefined) target.name = input.name;
    if (input.description !== undefined) target.description = input.description;
    if (input.enabled !== undefined) target.enabled = input.enabled;
    if (input.quotaBytes !== undefined) target.quotaBytes = input.quotaBytes;
    if (agentDirectUpload !== undefined) target.agentDirectUpload = agentDirectUpload;
    await this.#flushUnique();
    return target;
  }

  async delete(id: number): Promise<StorageTarget> {
    const target = await this.get(id);
    if (await this.#inUse(target.id)) throw new AppError('STORAGE_TARGET_IN_USE');
    await this.#em.remove(target).flush();
    return target;
  }

  async toggleStar(id: number): Promise<StorageTarget> {
    const target = await this.get(id);
    target.starred = !target.starred;
    await this.#em.flush();
    return target;
  }

  /** Tests a configuration that is not saved; a failure is 400 with the backend's reason. */
  async testUnsaved(input: TargetTestInput): Promise<TestResult> {
    const { targetId, ...settings } = input;
    const stored = targetId === undefined ? undefined : await this.get(targetId);
    if (stored && stored.type !== settings.type) throw new AppError('STORAGE_TARGET_TYPE_IMMUTABLE');
    const { config } = this.resolveInput(settings, stored);
    const result = await testInstance(await this.#opener.create(input.type, config));
    if (!result.success) throw new AppError('STORAGE_TARGET_TEST_FAILED', { message: result.message });
    return result;
  }

  /** Tests a saved target and records the outcome on it. */
  async testSaved(id: number): Promise<{ target: StorageTarget; result: TestResult }> {
    const target = await this.get(id);
    let result: TestResult;
    try {
      result = await testInstance(await this.#opener.open(target));
    } catch (err) {
      result = { success: false, message: providerFailure(err).message };
    }
    target.lastTestStatus = result.success ? 'success' : 'failed';
    target.lastTestAt = new Date();
    target.lastTestMessage = trimReason(result.message, 500);
    await this.#em.flush();
    return { target, result };
  }

  /** The usage: `diskUsage` and its fields only where the backend reports them. */
  async usage(id: number) {
    const target = await this.get(id);
    const recorded = await this.#recordedUsage(target.id);
    let diskUsage: { total?: number; used?: number; free?: number } | undefined;
    const instance = await this.#opener.open(target).catch(() => undefined);
    if (instance?.usage) {
      try {
        const u = await instance.usage();
        diskUsage = definedOnly({ total: u.totalBytes, used: u.usedBytes, free: u.freeBytes });
      } catch {
        diskUsage = undefined; // the backend does not report capacity right now
      } finally {
        await instance.close?.().catch(() => undefined);
      }
    }
    return {
      targetId: target.id,
      targetName: target.name,
      recordCount: recorded.count,
      totalSize: recorded.bytes,
      quotaBytes: target.quotaBytes,
      ...(diskUsage ? { diskUsage } : {}),
    };
  }

  #publicConfig(target: StorageTarget): Record<string, unknown> {
    return JSON.parse(target.config) as Record<string, unknown>;
  }

  /** Whether a backup task stores to the target (any position in its target list). */
  /** Used by a task, or holding artifacts of records (deleting it would orphan them). */
  async #inUse(targetId: number): Promise<boolean> {
    return (
      (await this.#em.count(BackupTaskTargetEntity, { storageTargetId: targetId })) > 0 ||
      (await heldCopies(this.#em, targetId)) > 0
    );
  }

  async #recordedUsage(targetId: number): Promise<{ count: number; bytes: number }> {
    return recordedUsage(this.#em, targetId);
  }

  async #flushUnique(): Promise<void> {
    try {
      await this.#em.flush();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new AppError('STORAGE_TARGET_NAME_EXISTS');
      throw err;
    }
  }
}

function definedOnly<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}
