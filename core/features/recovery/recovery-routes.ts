import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FilterQuery } from '@mikro-orm/core';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf, eventStreamResponse } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { setTotal } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { requireEventStreamAccept } from '../../http/sse-accept.ts';
import { streamRecordLog } from '../backup-records/record-log-stream.ts';
import { principalName } from '../../auth/principal.ts';
import {
  RestoreRecordEntity,
  VerifyRecordEntity,
  ReplicationRecordEntity,
} from '../../db/entities/recovery-records.ts';
import {
  RecoveryListQuery,
  ReplicationListQuery,
  RestoreBody,
  RestoreSummary,
  RestoreDetail,
  VerifyBody,
  VerifySummary,
  VerifyDetail,
  ReplicateBody,
  ReplicationSummary,
} from './recovery-schemas.ts';
import { restoreView, verifyView, replicationView, logOf } from './recovery-view.ts';
import { statusWhere } from '../backup-records/reported-status.ts';
import { cancelledBy } from '../../engine/index.ts';

type ListQuery = Static<typeof ReplicationListQuery>;

function filters(q: ListQuery): Record<string, unknown> {
  const where: Record<string, unknown> = {};
  if (q.backupRecordId !== undefined) where.backupRecordId = q.backupRecordId;
  if (q.taskId !== undefined) where.taskId = q.taskId;
  if (q.destTargetId !== undefined) where.destTargetId = q.destTargetId;
  const status = statusWhere(q.status);
  if (status !== undefined) where.status = status;
  const from = q.dateFrom ? new Date(q.dateFrom) : undefined;
  const to = q.dateTo ? new Date(q.dateTo) : undefined;
  if (from && to && from > to) throw new AppError('INVALID_INPUT', { message: 'dateFrom must not be after dateTo.' });
  if (from || to) where.queuedAt = { ...(from ? { $gte: from } : {}), ...(to ? { $lt: to } : {}) };
  return where;
}

/** Restore, verification and replication: starting them from a record (or task), and their records. */
export async function recoveryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const audit = (request: FastifyRequest, category: string, action: string, id: number, name: string, detail = '') =>
    request.diScope.cradle.audit.record(auditActor(request), {
      category,
      action,
      targetType: category,
      targetId: id,
      targetName: name,
      detail,
    });

  // ---- restore ---------------------------------------------------------------------------
  app.post(
    '/api/backup/records/:id/restore',
    {
      config: { access: 'operator' },
      schema: {
        params: IdParams,
        body: Type.Union([RestoreBody, Type.Null()]),
        response: { 200: envelopeOf(RestoreDetail) },
      },
    },
    async (request) => {
      const record = await request.diScope.cradle.restores.request(
        request.params.id,
        request.body ?? {},
        principalName(request.principal),
      );
      await audit(
        request,
        'restore_record',
        'start',
        record.id,
        record.taskName,
        `from backup record ${record.backupRecordId}${record.targetPath ? ` into ${record.targetPath}` : ''}` +
          (record.targetDatabase ? ` into database ${record.targetDatabase}` : ''),
      );
      return ok({ ...restoreView(record), ...(await logOf(request.diScope.cradle.restoreLogs, record)) });
    },
  );

  app.get(
    '/api/restore/records',
    {
      config: { access: 'auth' },
      schema: { querystring: RecoveryListQuery, response: { 200: envelopeOf(Type.Array(RestoreSummary)) } },
    },
    async (request, reply) => {
      const [rows, total] = await request.diScope.cradle.em.findAndCount(
        RestoreRecordEntity,
        filters(request.query) as FilterQuery<never>,
        { orderBy: { id: 'desc' }, limit: request.query.limit, offset: request.query.offset },
      );
      setTotal(reply, total);
      return ok(rows.map(restoreView));
    },
  );

  app.get(
    '/api/restore/records/:id',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, response: { 200: envelopeOf(RestoreDetail) } },
    },
    async (request) => {
      const { em, restoreLogs } = request.diScope.cradle;
      const record = await em.findOne(RestoreRecordEntity, { id: request.params.id });
      if (!record) throw new AppError('RESTORE_RECORD_NOT_FOUND');
      return ok({ ...restoreView(record), ...(await logOf(restoreLogs, record)) });
    },
  );

  app.get(
    '/api/restore/records/:id/logs/stream',
    {
      config: { access: 'auth' },
      sse: 'only',
      schema: { params: IdParams, response: { 200: eventStreamResponse('The restore log') } },
      preValidation: requireEventStreamAccept,
      preHandler: async (request) => {
        if (
          !(await request.diScope.cradle.em.findOne(RestoreRecordEntity, { id: (request.params as { id: number }).id }))
        )
          throw new AppError('RESTORE_RECORD_NOT_FOUND');
      },
    },
    async (request, reply) => {
      const { orm, restoreLogs } = request.diScope.cradle;
      const id = request.params.id;
      await streamRecordLog(
        reply,
        restoreLogs,
        id,
        async () => (await orm.em.fork().findOne(RestoreRecordEntity, { id }))?.status,
      );
    },
  );

  app.post(
    '/api/restore/records/:id/cancel',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(RestoreSummary) } },
    },
    async (request) => {
      const record = await request.diScope.cradle.restores.cancel(
        request.params.id,
        cancelledBy(principalName(request.principal)),
      );
      await audit(request, 'restore_record', 'cancel', record.id, record.taskName, record.errorMessage);
      return ok(restoreView(record));
    },
  );

  // ---- verification ----------------------------------------------------------------------
  app.post(
    '/api/backup/records/:id/verify',
    {
      config: { access: 'operator' },
      // The answer is the verification's detail, which a console reads back.
      schema: { params: IdParams, body: VerifyBody, response: { 200: envelopeOf(VerifyDetail) } },
    },
    async (request) => {
      const record = await request.diScope.cradle.verifications.request(
        request.params.id,
        request.body?.mode ?? 'quick',
        principalName(request.principal),
      );
      await audit(
        request,
        'verify_record',
        'start',
        record.id,
        record.taskName,
        `${record.mode} of backup record ${record.backupRecordId}`,
      );
      return ok({ ...verifyView(record), ...(await logOf(request.diScope.cradle.verifyLogs, record)) });
    },
  );

  app.post(
    '/api/backup/tasks/:id/verify',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, body: VerifyBody, response: { 200: envelopeOf(VerifyDetail) } },
    },
    async (request) => {
      const record = await request.diScope.cradle.verifications.requestForTask(
        request.params.id,
        request.body?.mode ?? 'quick',
        principalName(request.principal),
      );
      await audit(
        request,
        'verify_record',
        'start',
        record.id,
        record.taskName,
        `${record.mode} of backup record ${record.backupRecordId} (newest of task ${record.taskId})`,
      );
      // The answer is the verification record's detail, as GET /api/verify/records/:id gives it.
      return ok({ ...verifyView(record), ...(await logOf(request.diScope.cradle.verifyLogs, record)) });
    },
  );

  app.get(
    '/api/verify/records',
    {
      config: { access: 'auth' },
      schema: { querystring: RecoveryListQuery, response: { 200: envelopeOf(Type.Array(VerifySummary)) } },
    },
    async (request, reply) => {
      const [rows, total] = await request.diScope.cradle.em.findAndCount(
        VerifyRecordEntity,
        filters(request.query) as FilterQuery<never>,
        { orderBy: { id: 'desc' }, limit: request.query.limit, offset: request.query.offset },
      );
      setTotal(reply, total);
      return ok(rows.map(verifyView));
    },
  );

  app.get(
    '/api/verify/records/:id',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, response: { 200: envelopeOf(VerifyDetail) } },
    },
    async (request) => {
      const { em, verifyLogs } = request.diScope.cradle;
      const record = await em.findOne(VerifyRecordEntity, { id: request.params.id });
      if (!record) throw new AppError('VERIFY_RECORD_NOT_FOUND');
      return ok({ ...verifyView(record), ...(await logOf(verifyLogs, record)) });
    },
  );

  app.get(
    '/api/verify/records/:id/logs/stream',
    {
      config: { access: 'auth' },
      sse: 'only',
      schema: { params: IdParams, response: { 200: eventStreamResponse('The verification log') } },
      preValidation: requireEventStreamAccept,
      preHandler: async (request) => {
        if (
          !(await request.diScope.cradle.em.findOne(VerifyRecordEntity, { id: (request.params as { id: number }).id }))
        )
          throw new AppError('VERIFY_RECORD_NOT_FOUND');
      },
    },
    async (request, reply) => {
      const { orm, verifyLogs } = request.diScope.cradle;
      const id = request.params.id;
      await streamRecordLog(
        reply,
        verifyLogs,
        id,
        async () => (await orm.em.fork().findOne(VerifyRecordEntity, { id }))?.status,
      );
    },
  );

  app.post(
    '/api/verify/records/:id/cancel',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(VerifySummary) } },
    },
    async (request) => {
      const record = await request.diScope.cradle.verifications.cancel(
        request.params.id,
        cancelledBy(principalName(request.principal)),
      );
      await audit(request, 'verify_record', 'cancel', record.id, record.taskName, record.errorMessage);
      return ok(verifyView(record));
    },
  );

  // ---- replication -----------------------------------------------------------------------
  app.post(
    '/api/backup/records/:id/replicate',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, body: ReplicateBody, response: { 200: envelopeOf(ReplicationSummary) } },
    },
    async (request) => {
      const record = await request.diScope.cradle.replications.request(
        request.params.id,
        request.body.destTargetId,
        principalName(request.principal),
      );
      await audit(
        request,
        'replication_record',
        'start',
        record.id,
        record.taskName,
        `backup record ${record.backupRecordId} to ${record.destTargetName}`,
      );
      return ok(replicationView(record));
    },
  );

  app.get(
    '/api/replication/records',
    {
      config: { access: 'auth' },
      schema: { querystring: ReplicationListQuery, response: { 200: envelopeOf(Type.Array(ReplicationSummary)) } },
    },
    async (request, reply) => {
      const [rows, total] = await request.diScope.cradle.em.findAndCount(
        ReplicationRecordEntity,
        filters(request.query) as FilterQuery<never>,
        { orderBy: { id: 'desc' }, limit: request.query.limit, offset: request.query.offset },
      );
      setTotal(reply, total);
      return ok(rows.map(replicationView));
    },
  );

  app.get(
    '/api/replication/records/:id',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, response: { 200: envelopeOf(ReplicationSummary) } },
    },
    async (request) => {
      const record = await request.diScope.cradle.em.findOne(ReplicationRecordEntity, { id: request.params.id });
      if (!record) throw new AppError('REPLICATION_NOT_FOUND');
      return ok(replicationView(record));
    },
  );
}
