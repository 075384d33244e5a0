import type { MikroORM } from '@mikro-orm/core';
import {
  providerErrorKind,
  redactSecrets,
  type NotificationAddress,
  type NotificationMessage,
} from '@backplane/plugin-api';
import type { Config } from '../config/config.ts';
import { NotificationChannelEntity, type NotificationChannel } from '../db/entities/notification.ts';
import { AppError } from '../http/app-error.ts';
import type { NotifierOpener } from './notifier-opener.ts';

/** The outcome of one send: `kind` is the ProviderError kind of a failure. */
export type SendOutcome =
  | { ok: true; durationMs: number }
  | { ok: false; kind: string; message: string; durationMs: number };

/**
 * Sends one message through one notifier, now: opens it, sends with the configured timeout,
 * closes it, and reports the outcome with secrets removed from the reason. The delivery worker,
 * channel tests and one-time codes (MFA) all send through here.
 */
export class NotificationSender {
  readonly #orm: MikroORM;
  readonly #opener: NotifierOpener;
  readonly #config: Config;

  constructor({ orm, notifierOpener, config }: { orm: MikroORM; notifierOpener: NotifierOpener; config: Config }) {
    this.#orm = orm;
    this.#opener = notifierOpener;
    this.#config = config;
  }

  /** Sends through a type with a full config (public and secret fields). */
  async send(
    typeName: string,
    config: Record<string, unknown>,
    message: NotificationMessage,
    address?: NotificationAddress,
  ): Promise<SendOutcome> {
    const started = Date.now();
    const secrets = this.#opener.secretValues(
      this.#opener.has(typeName) ? this.#opener.type(typeName) : undefined,
      config,
    );
    try {
      const instance = await this.#opener.create(typeName, config);
      try {
        await instance.send(message, {
          signal: AbortSignal.timeout(this.#config.notifyTimeoutSeconds * 1000),
          ...(address ? { address } : {}),
        });
      } finally {
        await instance.close?.().catch(() => undefined);
      }
      return { ok: true, durationMs: Date.now() - started };
    } catch (err) {
      // Defence in depth: plugins are trusted not to put secrets in errors, and checked anyway.
      const reason = redactSecrets(
        err instanceof AppError || err instanceof Error ? err.message : String(err),
        secrets,
      ).slice(0, 1000);
      return {
        ok: false,
        kind: providerErrorKind(err) ?? (err instanceof AppError ? 'unsupported' : 'transient'),
        message: reason,
        durationMs: Date.now() - started,
      };
    }
  }

  /** Sends through a saved channel. */
  async sendThrough(
    channel: NotificationChannel,
    message: NotificationMessage,
    address?: NotificationAddress,
  ): Promise<SendOutcome> {
    if (!this.#opener.has(channel.type))
      return {
        ok: false,
        kind: 'unsupported',
        message: `no installed plugin provides the channel type "${channel.type}"`,
        durationMs: 0,
      };
    return this.send(channel.type, this.#opener.fullConfig(channel), message, address);
  }

  /**
   * Sends a message to one address (an email address, a phone number) through the first enabled
   * channel whose type can deliver to that kind, trying the next on failure: how one-time login
   * codes reach people. Throws NOTIFICATION_NO_CHANNEL when no channel can, and
   * NOTIFICATION_TEST_FAILED-style details otherwise via the returned outcome.
   */
  async sendTo(
    address: NotificationAddress,
    message: NotificationMessage,
  ): Promise<SendOutcome & { channelId?: number }> {
    const able = await this.#channelsReaching(address.kind, true);
    if (able.length === 0)
      throw new AppError('NOTIFICATION_NO_CHANNEL', {
        message: `No enabled notification channel can deliver to an address of kind "${address.kind}".`,
      });
    let last: SendOutcome | undefined;
    for (const channel of able) {
      last = await this.sendThrough(channel, message, address);
      if (last.ok) return { ...last, channelId: channel.id };
    }
    return last!;
  }

  /** Whether some enabled channel can deliver to an address of this kind (checked before a user relies on it). */
  async canReach(kind: NotificationAddress['kind']): Promise<boolean> {
    return (await this.#channelsReaching(kind, false)).length > 0;
  }

  async #channelsReaching(kind: NotificationAddress['kind'], withSecrets: boolean): Promise<NotificationChannel[]> {
    const channels = await this.#orm.em
      .fork()
      .find(
        NotificationChannelEntity,
        { enabled: true },
        { ...(withSecrets ? { populate: ['secrets'] as const } : {}), orderBy: { id: 'asc' } },
      );
    return channels.filter(
      (c) => this.#opener.has(c.type) && (this.#opener.type(c.type).addressKinds ?? []).includes(kind),
    );
  }
}
