import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { setTotal } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { principalName } from '../../auth/principal.ts';
import { toTemplateSummary } from './task-template-service.ts';
import {
  ApplyInput,
  ApplyResult,
  TemplateDetail,
  TemplateInput,
  TemplateListQuery,
  TemplateSummary,
  TemplateUpdate,
} from './task-template-schemas.ts';

type Target = { id: number; name: string };

export async function taskTemplateRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const record = (
    request: FastifyRequest,
    category: 'task_template' | 'backup_task',
    action: string,
    target: Target,
    detail = '',
  ) =>
    request.diScope.cradle.audit.record(auditActor(request), {
      category,
      action,
      targetType: category,
      targetId: target.id,
      targetName: target.name,
      detail,
    });

  app.get(
    '/api/task-templates',
    {
      config: { access: 'auth' },
      schema: { querystring: TemplateListQuery, response: { 200: envelopeOf(Type.Array(TemplateSummary)) } },
    },
    async (request, reply) => {
      const [templates, total] = await request.diScope.cradle.taskTemplates.list(request.query);
      setTotal(reply, total);
      return ok(templates.map(toTemplateSummary));
    },
  );

  app.get(
    '/api/task-templates/:id',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, response: { 200: envelopeOf(TemplateDetail) } },
    },
    async (request) => {
      const templates = request.diScope.cradle.taskTemplates;
      return ok(templates.detail(await templates.get(request.params.id)));
    },
  );

  app.post(
    '/api/task-templates',
    {
      config: { access: 'operator' },
      schema: { body: TemplateInput, response: { 200: envelopeOf(TemplateDetail) } },
    },
    async (request) => {
      const templates = request.diScope.cradle.taskTemplates;
      const template = await templates.create(request.body, principalName(request.principal));
      await record(request, 'task_template', 'create', template, `type=${template.taskType}`);
      return ok(templates.detail(template));
    },
  );

  app.put(
    '/api/task-templates/:id',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, body: TemplateUpdate, response: { 200: envelopeOf(TemplateDetail) } },
    },
    async (request) => {
      const templates = request.diScope.cradle.taskTemplates;
      const template = await templates.update(request.params.id, request.body);
      await record(request, 'task_template', 'update', template, Object.keys(request.body).join(', '));
      return ok(templates.detail(template));
    },
  );

  app.delete(
    '/api/task-templates/:id',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(Type.Object({ deleted: Type.Boolean() })) } },
    },
    async (request) => {
      const template = await request.diScope.cradle.taskTemplates.delete(request.params.id);
      await record(request, 'task_template', 'delete', { id: request.params.id, name: template.name });
      return ok({ deleted: true });
    },
  );

  app.post(
    '/api/task-templates/:id/apply',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, body: ApplyInput, response: { 200: envelopeOf(ApplyResult) } },
    },
    async (request) => {
      const templates = request.diScope.cradle.taskTemplates;
      const variables = templates.checkVariables(request.body.variables);
      const template = await templates.get(request.params.id);
      const results = await templates.apply(template, variables, async (task) => {
        await request.diScope.cradle.scheduler.sync(task.id);
        await record(request, 'backup_task', 'create', task, `from template ${template.name}`);
      });
      const created = results.filter((r) => r.success);
      await record(
        request,
        'task_template',
        'apply',
        template,
        `${created.length} of ${results.length} created${created.length ? `: ${created.map((r) => r.name).join(', ')}` : ''}`,
      );
      return ok(results);
    },
  );
}
