import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { NotificationMessage, NotifierType } from '@backplane/plugin-api';
import {
  NotificationAttemptEntity,
  NotificationChannelEntity,
  NotificationDeliveryEntity,
  NotificationEventEntity,
  type NotificationChannel,
} from '../../db/entities/notification.ts';
import { AppError } from '../../http/app-error.ts';
import { configError, configIssues, mergeSecrets, splitSecrets } from '../../plugin-host/provider-config.ts';
import { aliasIssues, fromAliases } from '../../plugin-host/config-aliases.ts';
import type { NotifierOpener } from '../../notifications/notifier-opener.ts';
import type { NotificationSender, SendOutcome } from '../../notifications/notification-sender.ts';
import { EVENT_TYPES } from '../../notifications/subscription.ts';
import { idempotencyKey } from '../../notifications/message.ts';
import type { ChannelInput, ChannelTestInput, ChannelUpdate } from './notification-schemas.ts';

const KNOWN_EVENTS = new Set<string>(EVENT_TYPES);

/** Notification channels: CRUD with sealed secrets, tests, and the delivery log. */
export class NotificationChannelService {
  readonly #em: EntityManager;
  readonly #opener: NotifierOpener;
  readonly #sender: NotificationSender;

  constructor({
    em,
    notifierOpener,
    notificationSender,
  }: { em: EntityManager; notifierOpener: NotifierOpener; notificationSender: NotificationSender }) {
    this.#em = em;
    this.#opener = notifierOpener;
    this.#sender = notificationSender;
  }

  async list(page: { limit: number; offset: number }): Promise<[NotificationChannel[], number]> {
    return this.#em.findAndCount(
      NotificationChannelEntity,
      {},
      { orderBy: { name: 'asc' }, limit: page.limit, offset: page.offset },
    );
  }

  async get(id: number): Promise<NotificationChannel> {
    const channel = await this.#em.findOne(NotificationChannelEntity, { id }, { populate: ['secrets'] });
    if (!channel) throw new AppError('NOTIFICATION_NOT_FOUND');
    return channel;
  }

  /** Which secret fields hold a value (they show as the mask). */
  storedSecretKeys(channel: NotificationChannel): string[] {
    return Object.entries(this.#opener.secretsOf(channel))
      .filter(([, v]) => v !== '' && v !== undefined && v !== null)
      .map(([k]) => k);
  }

  typeOf(name: string): NotifierType | undefined {
    return this.#opener.has(name) ? this.#opener.type(name) : undefined;
  }

  /** The full config of an input: aliases translated, masked or empty secrets taken from `stored`, validated against the type's schema. */
  resolveConfig(
    typeName: string,
    incoming: Record<string, unknown>,
    stored?: NotificationChannel,
  ): Record<string, unknown> {
    const type = this.#opener.type(typeName);
    const { config, aliased, issues } = fromAliases(
      type,
      { ...incoming },
      stored ? this.#opener.fullConfig(stored) : undefined,
    );
    const merged = stored ? mergeSecrets(type, config, this.#opener.secretsOf(stored)) : config;
    const invalid = configIssues(type, merged);
    const all = [...issues, ...(aliased ? aliasIssues(type, invalid) : invalid)];
    if (all.length > 0) throw configError(type.type, all, 'NOTIFICATION_INVALID');
    return merged;
  }

  async create(input: ChannelInput): Promise<NotificationChannel> {
    const type = this.#opener.type(input.type);
    const config = this.resolveConfig(input.type, input.config);
    const { plain, secrets } = splitSecrets(type, config);
    const channel = this.#em.create(NotificationChannelEntity, {
      name: input.name.trim(),
      type: input.type,
      enabled: input.enabled ?? true,
      onSuccess: input.onSuccess ?? false,
      onFailure: input.onFailure ?? true,
      eventTypes: JSON.stringify(checkedEventTypes(input.eventTypes)),
      config: JSON.stringify(plain),
      secrets: this.#opener.sealSecrets(secrets),
      digest: input.digest === 'daily' ? 'daily' : '',
      digestTime: input.digestTime ?? '08:00',
      lastDigestAt: null,
    });
    await this.#flushUnique();
    return channel;
  }

  async update(id: number, input: ChannelUpdate): Promise<NotificationChannel> {
    const channel = await this.get(id);
    if (input.type !== undefined && input.type !== channel.type) throw new AppError('NOTIFICATION_TYPE_IMMUTABLE');
    if (input.config !== undefined) {
      const type = this.#opener.type(channel.type);
      const { plain, secrets } = splitSecrets(type, this.resolveConfig(channel.type, input.config, channel));
      channel.config = JSON.stringify(plain);
      channel.secrets = this.#opener.sealSecrets(secrets);
    }
    if (input.name !== undefined) channel.name = input.name.trim();
    if (input.enabled !== undefined) channel.enabled = input.enabled;
    if (input.onSuccess !== undefined) channel.onSuccess = input.onSuccess;
    if (input.onFailure !== undefined) channel.onFailure = input.onFailure;
    if (input.eventTypes !== undefined) channel.eventTypes = JSON.stringify(checkedEventTypes(input.eventTypes));
    if (input.digest !== undefined) channel.digest = input.digest === 'daily' ? 'daily' : '';
    if (input.digestTime !== undefined) channel.digestTime = input.digestTime;
    await this.#flushUnique();
    return channel;
  }

  /** Deletes the channel; its deliveries still waiting are dropped, its log goes with it. */
  async delete(id: number): Promise<NotificationChannel> {
    const channel = await this.get(id);
    await this.#em.transactional(async (em) => {
      await em.nativeDelete(NotificationAttemptEntity, { channelId: id });
      await em.nativeDelete(NotificationDeliveryEntity, { channelId: id });
      await em.nativeDelete(NotificationChannelEntity, { id });
    });
    return channel;
  }

  /** Sends a test message with a configuration that is not saved; a failure is 400 with the service's reason. */
  async testUnsaved(input: ChannelTestInput): Promise<{ success: true; message: string }> {
    const config = this.resolveConfig(input.type, input.config);
    const outcome = await this.#sender.send(
      input.type,
      config,
      testMessage(input.name?.trim() || 'unsaved channel', 0, 0),
    );
    return passed(outcome);
  }

  /** Sends a test message through a saved channel; the attempt is written to its delivery log. */
  async testSaved(id: number): Promise<{ success: true; message: string }> {
    const channel = await this.get(id);
    const now = new Date();
    const event = this.#em.create(NotificationEventEntity, {
      type: 'test',
      severity: 'info',
      subject: `channel:${id}`,
      title: 'Backplane test notification',
      body: '',
      fields: '{}',
      linkPath: '',
      occurredAt: now,
      dispatchedAt: now,
    });
    await this.#em.flush();
    const message = testMessage(channel.name, event.id, channel.id);
    event.body = message.body;
    const delivery = this.#em.create(NotificationDeliveryEntity, {
      eventId: event.id,
      channelId: id,
      eventType: 'test',
      subject: event.subject,
      status: 'sending',
      attempts: 1,
      nextAttemptAt: null,
      lastError: '',
      coalescedCount: 0,
      mergedInto: null,
      deliveredAt: null,
    });
    await this.#em.flush();
    const outcome = await this.#sender.sendThrough(channel, message);
    const at = new Date();
    this.#em.create(NotificationAttemptEntity, {
      deliveryId: delivery.id,
      channelId: id,
      attempt: 1,
      outcome: outcome.ok ? 'delivered' : 'failed',
      errorKind: outcome.ok ? '' : outcome.kind,
      error: outcome.ok ? '' : outcome.message,
      durationMs: outcome.durationMs,
      at,
    });
    Object.assign(
      delivery,
      outcome.ok ? { status: 'delivered', deliveredAt: at } : { status: 'failed', lastError: outcome.message },
    );
    await this.#em.flush();
    return passed(outcome);
  }

  /** The delivery log of a channel, newest first, each delivery with its attempts. */
  async deliveries(id: number, page: { limit: number; offset: number }, status?: string) {
    await this.get(id);
    const [rows, total] = await this.#em.findAndCount(
      NotificationDeliveryEntity,
      { channelId: id, ...(status ? { status: status as never } : {}) },
      { orderBy: { id: 'desc' }, limit: page.limit, offset: page.offset },
    );
    const ids = rows.map((r) => r.id);
    const attempts = ids.length
      ? await this.#em.find(NotificationAttemptEntity, { deliveryId: { $in: ids } }, { orderBy: { id: 'asc' } })
      : [];
    const events = rows.length
      ? await this.#em.find(
          NotificationEventEntity,
          { id: { $in: rows.map((r) => r.eventId) } },
          { fields: ['id', 'title'] },
        )
      : [];
    const titles = new Map(events.map((e) => [e.id, e.title]));
    const items = rows.map((d) => ({
      id: d.id,
      eventId: d.eventId,
      eventType: d.eventType,
      title: titles.get(d.eventId) ?? '',
      subject: d.subject,
      status: d.status,
      attempts: d.attempts,
      lastError: d.lastError,
      coalescedCount: d.coalescedCount,
      mergedInto: d.mergedInto ?? null,
      nextAttemptAt: d.status === 'pending' ? (d.nextAttemptAt?.toISOString() ?? null) : null,
      deliveredAt: d.deliveredAt?.toISOString() ?? null,
      createdAt: d.createdAt.toISOString(),
      attemptLog: attempts
        .filter((a) => a.deliveryId === d.id)
        .map((a) => ({
          attempt: a.attempt,
          outcome: a.outcome,
          errorKind: a.errorKind,
          error: a.error,
          durationMs: a.durationMs,
          at: a.at.toISOString(),
        })),
    }));
    return [items, total] as const;
  }

  async #flushUnique(): Promise<void> {
    try {
      await this.#em.flush();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new AppError('NOTIFICATION_NAME_EXISTS');
      throw err;
    }
  }
}

/** `eventTypes` without duplicates; an unknown type is refused (a typo would silently mute a channel). */
function checkedEventTypes(types: string[] | null | undefined): string[] {
  const list = [...new Set((types ?? []).map((t) => t.trim()).filter(Boolean))];
  const unknown = list.filter((t) => !KNOWN_EVENTS.has(t));
  if (unknown.length > 0) {
    throw new AppError('NOTIFICATION_INVALID', {
      message: `Unknown event type(s): ${unknown.join(', ')}. Known: ${EVENT_TYPES.join(', ')}.`,
      details: unknown.map((t) => ({ path: 'eventTypes', message: `"${t}" is not an event type` })),
    });
  }
  return list;
}

function testMessage(channelName: string, eventId: number, channelId: number): NotificationMessage {
  const now = new Date().toISOString();
  return {
    event: 'test',
    severity: 'info',
    title: 'Backplane test notification',
    body: `This is a test message for the notification channel "${channelName}". If you can read it, the channel works.`,
    fields: { eventType: 'test', channel: channelName, timestamp: now },
    timestamp: now,
    idempotencyKey: eventId ? idempotencyKey(eventId, channelId) : `backplane-test-${Date.now()}`,
  };
}

function passed(outcome: SendOutcome): { success: true; message: string } {
  if (!outcome.ok)
    throw new AppError('NOTIFICATION_TEST_FAILED', {
      message: `The test message could not be delivered: ${outcome.message}`,
      details: [{ path: 'config', message: outcome.kind }],
    });
  return { success: true, message: 'The test message was delivered.' };
}
