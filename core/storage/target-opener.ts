import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { ProviderRegistry } from '../engine/index.ts';
import { type StorageType, type StorageInstance, type ProviderDeps, providerErrorKind } from '@backplane/plugin-api';
import type { StorageTarget } from '../db/entities/storage-target.ts';
import { AppError } from '../http/app-error.ts';

export const SECRETS_AAD = 'storage_targets.secrets';

/**
 * Turns a saved target into a live provider instance: looks up its type, unseals its secrets
 * and hands the provider the merged config. Instances are per operation; close them in `finally`.
 */
export class StorageTargetOpener {
  readonly #types: ProviderRegistry<StorageType>;
  readonly #box: SecretBox;
  readonly #config: Config;
  readonly #log: FastifyBaseLogger;

  constructor({
    storageTypes,
    secretBox,
    config,
    logger,
  }: { storageTypes: ProviderRegistry<StorageType>; secretBox: SecretBox; config: Config; logger: FastifyBaseLogger }) {
    this.#types = storageTypes;
    this.#box = secretBox;
    this.#config = config;
    this.#log = logger;
  }

  type(name: string): StorageType {
    const type = this.#types.get(name);
    if (!type)
      throw new AppError('STORAGE_PROVIDER_UNSUPPORTED', { message: `Unknown storage target type "${name}".` });
    return type;
  }

  deps(): ProviderDeps {
    const log = this.#log.child({ component: 'storage' });
    return {
      tempDir: join(this.#config.dataDir, 'tmp'),
      // Configuration that providers read as environment (YAML or env: the config wins).
      env: {
        ...process.env,
        BACKPLANE_GOOGLE_AUTH_URL: this.#config.googleAuthUrl,
        BACKPLANE_GOOGLE_TOKEN_URL: this.#config.googleTokenUrl,
        BACKPLANE_GOOGLE_API_URL: this.#config.googleApiUrl,
      },
      log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) },
    };
  }

  secretsOf(target: StorageTarget): Record<string, unknown> {
    // `secrets` is lazy: a target loaded without `populate: ['secrets']` would silently lose its credentials.
    if (target.secrets === undefined)
      throw new Error(`storage target ${target.id} was loaded without its secrets (populate: ['secrets'])`);
    return target.secrets ? (JSON.parse(this.#box.open(target.secrets, SECRETS_AAD)) as Record<string, unknown>) : {};
  }

  sealSecrets(secrets: Record<string, unknown>): string {
    return Object.keys(secrets).length === 0 ? '' : this.#box.seal(JSON.stringify(secrets), SECRETS_AAD);
  }

  /** The full config (public + secret fields) of a saved target. */
  fullConfig(target: StorageTarget): Record<string, unknown> {
    return { ...(JSON.parse(target.config) as Record<string, unknown>), ...this.secretsOf(target) };
  }

  async open(target: StorageTarget): Promise<StorageInstance> {
    return this.create(target.type, this.fullConfig(target));
  }

  /** Opens the target, runs `work` on it and closes it, whatever `work` does. */
  async use<T>(target: StorageTarget, work: (instance: StorageInstance) => Promise<T>): Promise<T> {
    const instance = await this.open(target);
    try {
      return await work(instance);
    } finally {
      await instance.close?.().catch(() => undefined);
    }
  }

  async create(typeName: string, config: Record<string, unknown>): Promise<StorageInstance> {
    try {
      return await this.type(typeName).create(config, this.deps());
    } catch (err) {
      throw providerFailure(err);
    }
  }
}

/** Maps a provider's failure onto the API's codes; the provider's reason is kept, trimmed. */
export function providerFailure(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const reason = trimReason(err);
  if (providerErrorKind(err) === 'unsupported')
    return new AppError('STORAGE_PROVIDER_UNAVAILABLE', { message: reason, cause: err });
  return new AppError('STORAGE_TARGET_INVALID_CONFIG', { message: reason, cause: err });
}

export function trimReason(err: unknown, max = 500): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
