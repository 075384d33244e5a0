import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const AuditLogEntity = defineEntity({
  name: 'AuditLog',
  tableName: 'audit_logs',
  indexes: [{ properties: ['createdAt'] }, { properties: ['category', 'action'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer().nullable(),
    username: p.string().length(128).default(''),
    category: p.string().length(64),
    action: p.string().length(64),
    targetType: p.string().length(64).default(''),
    targetId: p.string().length(64).default(''),
    targetName: p.string().length(255).default(''),
    detail: p.text().default(''),
    clientIp: p.string().length(64).default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type AuditLog = InferEntity<typeof AuditLogEntity>;
