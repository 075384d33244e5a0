import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { auditActor } from '../../events/audit-actor.ts';
import type { AuditEntry } from '../../events/audit-writer.ts';
import { buildTaskExport, parseExportIds, taskExportFileName } from './task-export.ts';
import { importTasks } from './task-import.ts';
import {
  EXPORT_VERSION,
  IMPORT_BODY_LIMIT,
  ImportReport,
  TaskExportFile,
  TaskExportQuery,
  TaskImportBody,
} from './task-transfer-schemas.ts';

/**
 * `GET /api/backup/tasks/export` and `POST /api/backup/tasks/import`: task definitions as the
 * reference's v1 JSON file. Registered before the task routes; the static paths win over
 * `/api/backup/tasks/:id` either way.
 */
export async function taskTransferRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const audit = (request: FastifyRequest, entry: Omit<AuditEntry, 'category' | 'targetType'>) =>
    request.diScope.cradle.audit.record(auditActor(request), {
      category: 'backup_task',
      targetType: 'backup_task',
      ...entry,
    });

  // A download, not an API answer: the file itself, without the envelope.
  app.get(
    '/api/backup/tasks/export',
    {
      config: { access: 'auth' },
      schema: { querystring: TaskExportQuery, response: { 200: TaskExportFile } },
    },
    async (request, reply) => {
      const ids = request.query.ids === undefined ? undefined : parseExportIds(request.query.ids);
      const now = new Date();
      const file = await buildTaskExport(request.diScope.cradle, ids, now);
      await audit(request, {
        action: 'export',
        detail: `count=${file.taskCount}${ids ? ` ids=${ids.join(',')}` : ''}`.slice(0, 4000),
      });
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${taskExportFileName(now)}"`)
        .send(file);
    },
  );

  app.post(
    '/api/backup/tasks/import',
    {
      config: { access: 'operator' },
      bodyLimit: IMPORT_BODY_LIMIT,
      // A file that is not a v1 export is one error code, whatever part of it is wrong.
      attachValidation: true,
      schema: { body: TaskImportBody, response: { 200: envelopeOf(ImportReport) } },
    },
    async (request) => {
      if (request.validationError) {
        const issues =
          (request.validationError as { validation?: { instancePath: string; message?: string }[] }).validation ?? [];
        const details = issues.map((v) => ({ path: `body${v.instancePath}`, message: v.message ?? 'invalid' }));
        throw new AppError('BACKUP_TASK_IMPORT_INVALID', { details });
      }
      const { version, tasks } = request.body;
      if (version !== EXPORT_VERSION) {
        throw new AppError('BACKUP_TASK_IMPORT_INVALID', {
          message: `Unsupported export version "${version}"; this server reads "${EXPORT_VERSION}".`,
        });
      }
      const { scheduler } = request.diScope.cradle;
      const report = await importTasks(request.diScope.cradle, tasks, {
        created: async (task) => {
          await scheduler.sync(task.id);
          await audit(request, { action: 'import', targetId: task.id, targetName: task.name, detail: 'import' });
        },
        linked: (task) => scheduler.sync(task.id),
      });
      return ok(report);
    },
  );
}
