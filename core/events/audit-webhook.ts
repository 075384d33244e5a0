import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AuditWriter, RecordedAuditEntry } from './audit-writer.ts';
import { VERSION } from '../engine/index.ts';

const TIMEOUT_MS = 3000;

/**
 * Forwards each stored audit entry to the `audit_webhook_url` setting (a SIEM, say), signed
 * with HMAC-SHA256 of the body when `audit_webhook_secret` is set. Best effort: a slow or
 * failing receiver is logged and never delays or fails the audited request.
 */
export class AuditWebhook {
  readonly #audit: AuditWriter;
  readonly #readSettings: () => Promise<Record<string, string>>;
  readonly #log: FastifyBaseLogger;
  #stop: (() => void) | undefined;

  constructor({
    audit,
    readSettings,
    logger,
  }: { audit: AuditWriter; readSettings: () => Promise<Record<string, string>>; logger: FastifyBaseLogger }) {
    this.#audit = audit;
    this.#readSettings = readSettings;
    this.#log = logger;
  }

  start(): void {
    this.#stop ??= this.#audit.onRecorded((entry) => void this.#deliver(entry));
  }

  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  async #deliver(entry: RecordedAuditEntry): Promise<void> {
    const log = this.#log;
    try {
      const settings = await this.#readSettings();
      const url = settings.audit_webhook_url;
      if (!url) return;
      const body = JSON.stringify({
        eventType: 'audit.log',
        occurredAt: entry.createdAt.toISOString(),
        actor: entry.actor,
        category: entry.category,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId,
        targetName: entry.targetName,
        detail: entry.detail,
        clientIp: entry.clientIp,
      });
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': `Backplane-Audit/${VERSION}`,
      };
      const secret = settings.audit_webhook_secret;
      if (secret)
        headers['x-backplane-signature'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const res = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (!res.ok) log.warn({ status: res.status }, 'audit webhook refused the entry');
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'audit webhook delivery failed');
    }
  }
}
