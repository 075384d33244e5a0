import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { NotifierInstance, NotifierType, ProviderDeps } from '@backplane/plugin-api';
import type { Config } from '../config/config.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { ProviderRegistry } from '../engine/index.ts';
import type { NotificationChannel } from '../db/entities/notification.ts';
import { AppError } from '../http/app-error.ts';

export const CHANNEL_SECRETS_AAD = 'notification_channels.secrets';

/** Turns a saved channel into a live notifier: its type, its unsealed secrets, its merged config. */
export class NotifierOpener {
  readonly #types: ProviderRegistry<NotifierType>;
  readonly #box: SecretBox;
  readonly #config: Config;
  readonly #log: FastifyBaseLogger;

  constructor({
    notifierTypes,
    secretBox,
    config,
    logger,
  }: {
    notifierTypes: ProviderRegistry<NotifierType>;
    secretBox: SecretBox;
    config: Config;
    logger: FastifyBaseLogger;
  }) {
    this.#types = notifierTypes;
    this.#box = secretBox;
    this.#config = config;
    this.#log = logger;
  }

  type(name: string): NotifierType {
    const type = this.#types.get(name);
    if (!type)
      throw new AppError('NOTIFICATION_TYPE_UNSUPPORTED', {
        message: `No installed plugin provides the notification channel type "${name}".`,
      });
    return type;
  }

  has(name: string): boolean {
    return this.#types.has(name);
  }

  list(): NotifierType[] {
    return this.#types.list();
  }

  deps(): ProviderDeps {
    const log = this.#log.child({ component: 'notifications' });
    return {
      tempDir: join(this.#config.dataDir, 'tmp'),
      log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) },
    };
  }

  secretsOf(channel: NotificationChannel): Record<string, unknown> {
    // `secrets` is lazy: a channel loaded without `populate: ['secrets']` would silently lose its credentials.
    if (channel.secrets === undefined)
      throw new Error(`notification channel ${channel.id} was loaded without its secrets (populate: ['secrets'])`);
    return channel.secrets
      ? (JSON.parse(this.#box.open(channel.secrets, CHANNEL_SECRETS_AAD)) as Record<string, unknown>)
      : {};
  }

  sealSecrets(secrets: Record<string, unknown>): string {
    return Object.keys(secrets).length === 0 ? '' : this.#box.seal(JSON.stringify(secrets), CHANNEL_SECRETS_AAD);
  }

  fullConfig(channel: NotificationChannel): Record<string, unknown> {
    return { ...(JSON.parse(channel.config) as Record<string, unknown>), ...this.secretsOf(channel) };
  }

  /** The non-empty secret values of a config: what must never appear in a log line or a stored error. */
  secretValues(type: NotifierType | undefined, config: Record<string, unknown>): string[] {
    return (type?.secretFields ?? [])
      .map((f) => config[f])
      .filter((v): v is string => typeof v === 'string' && v.length > 0);
  }

  async create(typeName: string, config: Record<string, unknown>): Promise<NotifierInstance> {
    return this.type(typeName).create(config, this.deps());
  }
}
