import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { setTotal } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import type { BackupTask } from '../../db/entities/backup-task.ts';
import {
  TaskInput,
  TaskUpdate,
  TaskListQuery,
  TaskSummary,
  TaskDetail,
  BatchIds,
  BatchToggle,
  BatchResult,
  BatchRunResult,
  RunAccepted,
} from './backup-task-schemas.ts';
import { principalName } from '../../auth/principal.ts';
import { recordDetail } from '../backup-records/record-detail.ts';

export const MAX_BATCH = 100;

/** A batch item: `name` when the task was found, `error` (and `code`) only on failure. */
type BatchItem = { id: number; name?: string; success: boolean; error?: string; code?: string };

/** Batch ids: 1 to 100 positive integers; repeats are processed once. */
function batchIds(ids: number[]): number[] {
  if (ids.length === 0 || ids.length > MAX_BATCH)
    throw new AppError('BACKUP_TASK_BATCH_INVALID', { message: `ids must list 1 to ${MAX_BATCH} tasks.` });
  if (ids.some((id) => !Number.isSafeInteger(id) || id < 1))
    throw new AppError('BACKUP_TASK_BATCH_INVALID', { message: 'ids must be positive integers.' });
  return [...new Set(ids)];
}

/** Runs one operation per id; a failure is reported in its item and does not stop the others. */
async function eachTask(ids: number[], op: (id: number) => Promise<BackupTask>): Promise<BatchItem[]> {
  const results: BatchItem[] = [];
  for (const id of ids) {
    try {
      const task = await op(id);
      results.push({ id, name: task.name, success: true });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      results.push({ id, success: false, error: err.message, code: err.code });
    }
  }
  return results;
}

export async function backupTaskRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const audit = (request: FastifyRequest, action: string, task: { id: number; name: string }, detail = '') =>
    request.diScope.cradle.audit.record(auditActor(request), {
      category: 'backup_task',
      action,
      targetType: 'backup_task',
      targetId: task.id,
      targetName: task.name,
      detail,
    });

  app.get(
    '/api/backup/tasks',
    {
      config: { access: 'auth' },
      schema: { querystring: TaskListQuery, response: { 200: envelopeOf(Type.Array(TaskSummary)) } },
    },
    async (request, reply) => {
      const { backupTasks } = request.diScope.cradle;
      const [tasks, total] = await backupTasks.list(request.query);
      setTotal(reply, total);
      return ok(await backupTasks.summaries(tasks));
    },
  );

  app.get(
    '/api/backup/tasks/tags',
    {
      config: { access: 'auth' },
      schema: { response: { 200: envelopeOf(Type.Array(Type.String())) } },
    },
    async (request) => ok(await request.diScope.cradle.backupTasks.tags()),
  );

  app.get(
    '/api/backup/tasks/:id',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, response: { 200: envelopeOf(TaskDetail) } },
    },
    async (request) => {
      const { backupTasks } = request.diScope.cradle;
      return ok(await backupTasks.detail(await backupTasks.get(request.params.id)));
    },
  );

  app.post(
    '/api/backup/tasks',
    {
      config: { access: 'operator' },
      schema: { body: TaskInput, response: { 200: envelopeOf(TaskDetail) } },
    },
    async (request) => {
      const { backupTasks } = request.diScope.cradle;
      const task = await backupTasks.create(request.body);
      await request.diScope.cradle.scheduler.sync(task.id);
      await audit(request, 'create', task, `type=${task.type}`);
      return ok(await backupTasks.detail(task));
    },
  );

  app.put(
    '/api/backup/tasks/:id',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, body: TaskUpdate, response: { 200: envelopeOf(TaskDetail) } },
    },
    async (request) => {
      const { backupTasks } = request.diScope.cradle;
      const task = await backupTasks.update(request.params.id, request.body);
      await request.diScope.cradle.scheduler.sync(task.id);
      await audit(request, 'update', task, Object.keys(request.body).join(', '));
      return ok(await backupTasks.detail(task));
    },
  );

  app.delete(
    '/api/backup/tasks/:id',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(Type.Object({ deleted: Type.Boolean() })) } },
    },
    async (request) => {
      const task = await request.diScope.cradle.backupTasks.delete(request.params.id);
      await request.diScope.cradle.scheduler.sync(request.params.id);
      await audit(request, 'delete', { id: request.params.id, name: task.name });
      return ok({ deleted: true });
    },
  );

  app.put(
    '/api/backup/tasks/:id/toggle',
    {
      config: { access: 'operator' },
      schema: {
        params: IdParams,
        // No body reaches validation as null: it flips the state.
        body: Type.Union([Type.Object({ enabled: Type.Optional(Type.Boolean()) }), Type.Null()]),
        response: { 200: envelopeOf(TaskSummary) },
      },
    },
    async (request) => {
      const { backupTasks } = request.diScope.cradle;
      const task = await backupTasks.toggle(request.params.id, request.body?.enabled);
      await request.diScope.cradle.scheduler.sync(task.id);
      await audit(request, 'toggle', task, `enabled=${task.enabled}`);
      return ok((await backupTasks.summaries([task]))[0]!);
    },
  );

  app.post(
    '/api/backup/tasks/batch/toggle',
    {
      config: { access: 'operator' },
      schema: { body: BatchToggle, response: { 200: envelopeOf(BatchResult) } },
    },
    async (request) => {
      const { backupTasks } = request.diScope.cradle;
      const { enabled } = request.body;
      return ok(
        await eachTask(batchIds(request.body.ids), async (id) => {
          const task = await backupTasks.toggle(id, enabled);
          await request.diScope.cradle.scheduler.sync(id);
          await audit(request, 'toggle', task, `enabled=${enabled} (batch)`);
          return task;
        }),
      );
    },
  );

  app.post(
    '/api/backup/tasks/batch/delete',
    {
      config: { access: 'operator' },
      schema: { body: BatchIds, response: { 200: envelopeOf(BatchResult) } },
    },
    async (request) => {
      const { backupTasks } = request.diScope.cradle;
      return ok(
        await eachTask(batchIds(request.body.ids), async (id) => {
          const task = await backupTasks.delete(id);
          await request.diScope.cradle.scheduler.sync(id);
          await audit(request, 'delete', { id, name: task.name }, 'batch');
          return task;
        }),
      );
    },
  );

  app.post(
    '/api/backup/tasks/:id/run',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(RunAccepted) } },
    },
    async (request) => {
      const { cradle } = request.diScope;
      const task = await cradle.backupTasks.get(request.params.id);
      const record = await cradle.backupRuns.request(task.id, {
        trigger: 'manual',
        triggeredBy: principalName(request.principal),
      });
      await audit(request, 'manual_run', task, `record ${record.id}`);
      // The answer is the record's detail (a console opens the record's log from `id`).
      return ok({ ...(await recordDetail(cradle, await cradle.backupRecords.get(record.id))), recordId: record.id });
    },
  );

  app.post(
    '/api/backup/tasks/batch/run',
    {
      config: { access: 'operator' },
      schema: { body: BatchIds, response: { 200: envelopeOf(BatchRunResult) } },
    },
    async (request) => {
      const { backupRuns, backupTasks } = request.diScope.cradle;
      const results: (BatchItem & { recordId?: number })[] = [];
      for (const id of batchIds(request.body.ids)) {
        let name: string | undefined;
        try {
          const task = await backupTasks.get(id);
          name = task.name;
          const record = await backupRuns.request(id, {
            trigger: 'manual',
            triggeredBy: principalName(request.principal),
          });
          await audit(request, 'manual_run', task, `record ${record.id} (batch)`);
          results.push({ id, name, success: true, recordId: record.id });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          results.push({
            id,
            ...(name === undefined ? {} : { name }),
            success: false,
            error: err.message,
            code: err.code,
          });
        }
      }
      return ok(results);
    },
  );
}
