import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/core';
import { Type, type Static } from 'typebox';
import { AuditLogEntity, type AuditLog } from '../../db/entities/audit-log.ts';
import { AppError } from '../../http/app-error.ts';

export const AuditFilterQuery = Type.Object({
  category: Type.Optional(Type.String({ maxLength: 64 })),
  action: Type.Optional(Type.String({ maxLength: 64 })),
  username: Type.Optional(Type.String({ maxLength: 128 })),
  targetType: Type.Optional(Type.String({ maxLength: 64 })),
  targetId: Type.Optional(Type.String({ maxLength: 64 })),
  keyword: Type.Optional(Type.String({ maxLength: 200 })),
  dateFrom: Type.Optional(Type.String({ format: 'date-time' })),
  dateTo: Type.Optional(Type.String({ format: 'date-time' })),
});
export type AuditFilter = Static<typeof AuditFilterQuery>;

export const AuditView = Type.Object({
  id: Type.Integer(),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  username: Type.String(),
  category: Type.String(),
  action: Type.String(),
  targetType: Type.String(),
  targetId: Type.String(),
  targetName: Type.String(),
  detail: Type.String(),
  clientIp: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

export function toAuditView(row: AuditLog): Static<typeof AuditView> {
  return {
    id: row.id,
    userId: row.userId ?? null,
    username: row.username,
    category: row.category,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    targetName: row.targetName,
    detail: row.detail,
    clientIp: row.clientIp,
    createdAt: row.createdAt.toISOString(),
  };
}

/** LIKE wildcards in user input are matched literally. */
function likeLiteral(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `column LIKE pattern ESCAPE '\'`: SQLite has no default LIKE escape character (PostgreSQL's
 * is the backslash), so without the clause `\%` would not mean a literal percent sign there.
 */
function likeEscaped(column: string, pattern: string) {
  return { [raw((alias: string) => `${alias}.${column} like ? escape '\\'`, [pattern])]: [] };
}

export class AuditQuery {
  readonly #em: EntityManager;

  constructor({ em }: { em: EntityManager }) {
    this.#em = em;
  }

  where(filter: AuditFilter): FilterQuery<AuditLog> {
    const where: Record<string, unknown> = {};
    for (const key of ['category', 'action', 'username', 'targetType', 'targetId'] as const) {
      if (filter[key]) where[key] = filter[key];
    }
    const from = filter.dateFrom ? new Date(filter.dateFrom) : undefined;
    const to = filter.dateTo ? new Date(filter.dateTo) : undefined;
    if (from && to && from > to)
      throw new AppError('AUDIT_FILTER_INVALID', { message: 'dateFrom must not be after dateTo.' });
    if (from || to) where.createdAt = { ...(from ? { $gte: from } : {}), ...(to ? { $lte: to } : {}) };
    if (filter.keyword) {
      const pattern = likeLiteral(filter.keyword);
      where.$or = [likeEscaped('detail', pattern), likeEscaped('target_name', pattern)];
    }
    return where as FilterQuery<AuditLog>;
  }

  async list(filter: AuditFilter, page: { limit: number; offset: number }): Promise<[AuditLog[], number]> {
    return this.#em.findAndCount(AuditLogEntity, this.where(filter), {
      orderBy: { id: 'desc' },
      limit: page.limit,
      offset: page.offset,
    });
  }

  /** Newest first, in batches, so an export of any size never sits whole in memory. */
  async *iterate(filter: AuditFilter, batchSize = 500): AsyncGenerator<AuditLog> {
    const where = this.where(filter);
    let beforeId: number | undefined;
    for (;;) {
      const cond =
        beforeId === undefined ? where : ({ $and: [where, { id: { $lt: beforeId } }] } as FilterQuery<AuditLog>);
      const rows = await this.#em.find(AuditLogEntity, cond, { orderBy: { id: 'desc' }, limit: batchSize });
      for (const row of rows) yield row;
      if (rows.length < batchSize) return;
      beforeId = rows[rows.length - 1]!.id;
      this.#em.clear();
    }
  }
}
