import type { MikroORM } from '@mikro-orm/core';
import { AuditLogEntity } from '../db/entities/audit-log.ts';
import type { Principal } from '../auth/principal.ts';
import { principalName } from '../auth/principal.ts';

export interface AuditActor {
  principal: Principal | null;
  clientIp: string;
  username?: string;
}

/** The actor of background work (scheduler, retention, dependents). */
export const SYSTEM_ACTOR: AuditActor = { principal: null, clientIp: '', username: 'system' };

export interface AuditEntry {
  category: string;
  action: string;
  targetType?: string;
  targetId?: string | number;
  targetName?: string;
  detail?: string;
}

/** An entry as stored, handed to `onRecorded` listeners. */
export type RecordedAuditEntry = {
  id: number;
  actor: { userId: number | null; username: string };
  clientIp: string;
  createdAt: Date;
} & Required<AuditEntry>;
type Listener = (row: RecordedAuditEntry) => void;

/**
 * Writes audit entries on its own EntityManager fork, so an entry is stored even when the
 * request's own unit of work is rolled back (a failed login is exactly such a case).
 */
export class AuditWriter {
  readonly #orm: MikroORM;
  readonly #listeners = new Set<Listener>();

  constructor({ orm }: { orm: MikroORM }) {
    this.#orm = orm;
  }

  async record(actor: AuditActor, entry: AuditEntry): Promise<void> {
    const em = this.#orm.em.fork();
    const userId =
      actor.principal?.kind === 'user'
        ? actor.principal.userId
        : actor.principal?.kind === 'apiKey'
          ? actor.principal.createdById
          : null;
    const row = em.create(AuditLogEntity, {
      userId,
      username: (actor.username ?? principalName(actor.principal)).slice(0, 128),
      category: entry.category,
      action: entry.action,
      targetType: entry.targetType ?? '',
      targetId: entry.targetId === undefined ? '' : String(entry.targetId),
      targetName: (entry.targetName ?? '').slice(0, 255),
      detail: (entry.detail ?? '').slice(0, 4000),
      clientIp: actor.clientIp.slice(0, 64),
    });
    await em.flush();
    const full = {
      id: row.id,
      actor: { userId: row.userId ?? null, username: row.username },
      clientIp: row.clientIp,
      createdAt: row.createdAt,
      category: row.category,
      action: row.action,
      targetType: row.targetType,
      targetId: row.targetId,
      targetName: row.targetName,
      detail: row.detail,
    };
    for (const listener of this.#listeners) listener(full);
  }

  /** Observers of stored entries (the audit webhook). */
  onRecorded(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
