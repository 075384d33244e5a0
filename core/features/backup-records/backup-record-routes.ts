import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf, eventStreamResponse, rawResponse } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { setTotal } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { requireEventStreamAccept } from '../../http/sse-accept.ts';
import {
  ARTIFACT_STATUSES,
  BackupRecordEntity,
  BackupRecordCopyEntity,
  type BackupRecord,
} from '../../db/entities/backup-record.ts';
import { streamRecordLog } from './record-log-stream.ts';
import {
  RecordListQuery,
  RecordSummary,
  RecordDetail,
  LockBody,
  BatchDeleteBody,
  BatchDeleteResult,
  ContentsQuery,
  ContentsResult,
} from './backup-record-schemas.ts';
import { recordSummary } from './backup-record-view.ts';
import { parseRange } from './byte-range.ts';
import { recordDetail } from './record-detail.ts';
import { snapshotTar } from '../../recovery/repository-source.ts';
import { openStoredCopy, unreadableArtifact } from '../../recovery/artifact-source.ts';
import { errorText, cancelledBy } from '../../engine/index.ts';
import { principalName } from '../../auth/principal.ts';

export const MAX_BATCH = 100;

function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export async function backupRecordRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const audit = (request: FastifyRequest, action: string, record: BackupRecord, detail = '') =>
    request.diScope.cradle.audit.record(auditActor(request), {
      category: 'backup_record',
      action,
      targetType: 'backup_record',
      targetId: record.id,
      targetName: record.taskName,
      detail,
    });

  app.get(
    '/api/backup/records',
    {
      config: { access: 'auth' },
      schema: { querystring: RecordListQuery, response: { 200: envelopeOf(Type.Array(RecordSummary)) } },
    },
    async (request, reply) => {
      const { backupRecords, recordLogs } = request.diScope.cradle;
      const [records, total] = await backupRecords.list(request.query);
      const copies = await backupRecords.listCopies(records.map((r) => r.id));
      setTotal(reply, total);
      return ok(records.map((r) => recordSummary(r, copies.get(r.id) ?? [], recordLogs.lastProgress(r.id))));
    },
  );

  app.get(
    '/api/backup/records/:id',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, response: { 200: envelopeOf(RecordDetail) } },
    },
    async (request) => {
      const { cradle } = request.diScope;
      return ok(await recordDetail(cradle, await cradle.backupRecords.get(request.params.id)));
    },
  );

  app.get(
    '/api/backup/records/:id/logs/stream',
    {
      config: { access: 'auth' },
      sse: 'only',
      schema: { params: IdParams, response: { 200: eventStreamResponse('The run log') } },
      preValidation: requireEventStreamAccept,
      // The record must exist before the stream opens, so a bad id gets the JSON envelope.
      preHandler: async (request) => {
        await request.diScope.cradle.backupRecords.get((request.params as { id: number }).id);
      },
    },
    async (request, reply) => {
      const { recordLogs, orm } = request.diScope.cradle;
      const id = request.params.id;
      await streamRecordLog(
        reply,
        recordLogs,
        id,
        async () => (await orm.em.fork().findOne(BackupRecordEntity, { id }))?.status,
      );
    },
  );

  app.get(
    '/api/backup/records/:id/download',
    {
      config: { access: 'auth' },
      schema: {
        params: IdParams,
        // Backplane's: the copy on this target (the record's copies name their targets); absent, the first intact copy.
        querystring: Type.Object({
          storageTargetId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
        }),
        response: {
          200: rawResponse(
            'The artifact as stored (checksum in X-Checksum-Sha256)',
            ['application/octet-stream'],
            'binary',
          ),
          206: rawResponse('The byte range asked for with Range', ['application/octet-stream'], 'binary'),
        },
      },
    },
    async (request, reply) => {
      const { backupRecords, orm, storageOpener } = request.diScope.cradle;
      const record = await backupRecords.get(request.params.id);
      if (!ARTIFACT_STATUSES.includes(record.status))
        throw new AppError('BACKUP_RECORD_NO_ARTIFACT', { message: `A ${record.status} record holds no artifact.` });
      if (record.backupKind === 'repository') {
        // A restic snapshot is no one object: the download is a tar of it (docs/repositories.md).
        const { stream, copy } = await snapshotTar(request.diScope.cradle, record, (level, text) =>
          level === 'error' ? request.log.warn({ recordId: record.id }, text) : undefined,
        ).catch((err: unknown) => {
          throw new AppError('BACKUP_RECORD_DOWNLOAD_FAILED', { message: `${errorText(err)}.`.slice(0, 1000) });
        });
        await audit(
          request,
          'download',
          record,
          `snapshot ${copy.snapshotId.slice(0, 8)} from ${copy.storageTargetName}`,
        );
        reply.header('Content-Type', 'application/x-tar');
        reply.header('Content-Disposition', contentDisposition(`${record.fileName}.tar`));
        reply.header('Cache-Control', 'no-store');
        reply.header('X-Backup-Kind', 'repository');
        reply.header('X-Restic-Snapshot-Id', copy.snapshotId);
        return reply.send(stream);
      }
      const range = parseRange(request.headers.range, record.fileSize);
      const chosen =
        request.query.storageTargetId === undefined
          ? undefined
          : await intactCopyOn(request, record.id, request.query.storageTargetId);
      // Copies a read found corrupt are never served while another copy exists; a download that
      // finds its copy corrupt marks it, so the next request gets a healthy one.
      const copy = await openStoredCopy(orm, storageOpener, record, {
        skipCorrupt: true,
        ...(chosen ? { copyId: chosen } : {}),
        ...(range ? { range } : {}),
      }).catch((err: unknown) => {
        throw unreadableArtifact(err);
      });
      await audit(
        request,
        'download',
        record,
        `from ${copy.targetName}${range ? ` bytes ${range.start}-${range.end}` : ''}`,
      );
      reply.header('Content-Type', 'application/octet-stream');
      reply.header('Content-Disposition', contentDisposition(record.fileName));
      reply.header('Accept-Ranges', 'bytes');
      reply.header('X-Checksum-Sha256', record.checksum);
      reply.header('Cache-Control', 'no-store');
      // A differential's artifact restores only over its full's (docs/differential.md): say which.
      reply.header('X-Backup-Kind', record.backupKind);
      if (record.backupKind === 'differential') reply.header('X-Backup-Base-Record-Id', String(record.baseRecordId));
      if (range) {
        reply.code(206);
        reply.header('Content-Range', `bytes ${range.start}-${range.end}/${record.fileSize}`);
        reply.header('Content-Length', range.end - range.start + 1);
        // A slice cannot be checked against the whole artifact's checksum; clients verify the whole.
        return reply.send(copy.stream);
      }
      reply.header('Content-Length', record.fileSize);
      // The guard holds the last chunk back until the SHA-256 matched; on a mismatch the stream
      // errors and Fastify destroys the socket, so the client sees a short, failed transfer.
      copy.stream.once('error', (err) => {
        if (copy.check.state === 'corrupt')
          request.log.error(
            { recordId: record.id, target: copy.targetName, why: copy.check.why },
            'artifact failed its checksum while downloading; the copy is marked corrupt',
          );
        else
          request.log.warn(
            { recordId: record.id, target: copy.targetName, err: errorText(err) },
            'download interrupted',
          );
      });
      return reply.send(copy.stream);
    },
  );

  app.get(
    '/api/backup/records/:id/contents',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, querystring: ContentsQuery, response: { 200: envelopeOf(ContentsResult) } },
    },
    async (request) => {
      const { backupRecords } = request.diScope.cradle;
      const record = await backupRecords.get(request.params.id);
      const { total, entries } = await backupRecords.contents(record, request.query);
      return ok({
        recordId: record.id,
        total,
        truncated: request.query.offset + entries.length < total,
        // BackupX's field: a differential's full. Backplane's listing is the differential's own tree.
        ...(record.backupKind === 'differential' ? { basedOnFull: record.baseRecordId } : {}),
        entries,
      });
    },
  );

  app.put(
    '/api/backup/records/:id/lock',
    {
      config: { access: 'operator' },
      // The answer is the record's detail, which a console reads back.
      schema: { params: IdParams, body: LockBody, response: { 200: envelopeOf(RecordDetail) } },
    },
    async (request) => {
      const { cradle } = request.diScope;
      const record = await cradle.backupRecords.setLocked(request.params.id, request.body.locked);
      await audit(request, request.body.locked ? 'lock' : 'unlock', record);
      return ok(await recordDetail(cradle, record));
    },
  );

  app.post(
    '/api/backup/records/:id/cancel',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(RecordSummary) } },
    },
    async (request) => {
      const { backupCancel, backupRecords } = request.diScope.cradle;
      const record = await backupCancel.stop(request.params.id, cancelledBy(principalName(request.principal)));
      await audit(request, 'cancel', record, record.errorMessage);
      return ok(recordSummary(record, (await backupRecords.copies([record.id])).get(record.id) ?? []));
    },
  );

  app.delete(
    '/api/backup/records/:id',
    {
      config: { access: 'operator' },
      schema: {
        params: IdParams,
        response: { 200: envelopeOf(Type.Object({ id: Type.Integer(), deleted: Type.Boolean() })) },
      },
    },
    async (request) => {
      const { backupRecords, recordDeleter } = request.diScope.cradle;
      const record = await backupRecords.get(request.params.id);
      const outcome = await recordDeleter.delete(record.id);
      if (!outcome.deleted) {
        await audit(request, 'delete_failed', record, outcome.error ?? '');
        throw new AppError('BACKUP_RECORD_DELETE_FAILED', {
          message: `The record is kept and deletion will be retried: ${outcome.error ?? ''}`.slice(0, 1000),
        });
      }
      await audit(request, 'delete', record, record.fileName);
      return ok({ id: record.id, deleted: true });
    },
  );

  app.post(
    '/api/backup/records/batch-delete',
    {
      config: { access: 'operator' },
      schema: { body: BatchDeleteBody, response: { 200: envelopeOf(BatchDeleteResult) } },
    },
    async (request) => {
      const { backupRecords, recordDeleter } = request.diScope.cradle;
      const raw = request.body.ids;
      if (raw.length === 0 || raw.length > MAX_BATCH)
        throw new AppError('BACKUP_RECORD_BATCH_INVALID', { message: `ids must list 1 to ${MAX_BATCH} records.` });
      if (raw.some((id) => !Number.isSafeInteger(id) || id < 1))
        throw new AppError('BACKUP_RECORD_BATCH_INVALID', { message: 'ids must be positive integers.' });
      const results: Array<{ id: number; success: boolean; error: string | null; code: string | null }> = [];
      for (const id of new Set(raw)) {
        try {
          const record = await backupRecords.get(id);
          const outcome = await recordDeleter.delete(id);
          if (outcome.deleted) {
            await audit(request, 'delete', record, `${record.fileName} (batch)`);
            results.push({ id, success: true, error: null, code: null });
          } else {
            await audit(request, 'delete_failed', record, outcome.error ?? '');
            results.push({
              id,
              success: false,
              error: outcome.error ?? 'delete failed',
              code: 'BACKUP_RECORD_DELETE_FAILED',
            });
          }
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          results.push({ id, success: false, error: err.message, code: err.code });
        }
      }
      const succeeded = results.filter((r) => r.success).length;
      return ok({ results, succeeded, failed: results.length - succeeded, deleted: succeeded });
    },
  );
}

/** The id of the record's intact copy on a target, or 404 BACKUP_RECORD_COPY_NOT_FOUND. */
async function intactCopyOn(request: FastifyRequest, recordId: number, storageTargetId: number): Promise<number> {
  const copy = await request.diScope.cradle.em.findOne(BackupRecordCopyEntity, {
    recordId,
    storageTargetId,
    status: 'success',
    corruptAt: null,
  });
  if (!copy)
    throw new AppError('BACKUP_RECORD_COPY_NOT_FOUND', {
      message: `Record ${recordId} has no intact copy on storage target ${storageTargetId}.`,
    });
  return copy.id;
}
