import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf, pageQuery } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { setTotal } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import type { NotificationChannel } from '../../db/entities/notification.ts';
import {
  ChannelDetail,
  ChannelInput,
  ChannelSummary,
  ChannelTestInput,
  ChannelTypeView,
  ChannelUpdate,
  DeliveryQuery,
  DeliveryView,
} from './notification-schemas.ts';
import { toChannelDetail, toChannelSummary, toChannelType } from './notification-view.ts';

const TestResult = Type.Object({ success: Type.Boolean(), message: Type.String() });

/** Spec 4.6: notification channels, plus the type catalogue and each channel's delivery log. */
export async function notificationRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const detail = (request: FastifyRequest, c: NotificationChannel) => {
    const { notificationChannels } = request.diScope.cradle;
    return toChannelDetail(c, notificationChannels.typeOf(c.type), notificationChannels.storedSecretKeys(c));
  };
  const audit = (request: FastifyRequest, action: string, c: NotificationChannel, detailText = `type=${c.type}`) =>
    request.diScope.cradle.audit.record(auditActor(request), {
      category: 'notification',
      action,
      targetType: 'notification',
      targetId: c.id,
      targetName: c.name,
      detail: detailText,
    });

  app.get(
    '/api/notifications',
    {
      config: { access: 'auth' },
      schema: {
        querystring: Type.Object(pageQuery(200, 1000)),
        response: { 200: envelopeOf(Type.Array(ChannelSummary)) },
      },
    },
    async (request, reply) => {
      const [channels, total] = await request.diScope.cradle.notificationChannels.list(request.query);
      setTotal(reply, total);
      return ok(channels.map(toChannelSummary));
    },
  );

  app.get(
    '/api/notifications/types',
    {
      config: { access: 'auth' },
      schema: { response: { 200: envelopeOf(Type.Array(ChannelTypeView)) } },
    },
    async (request) =>
      ok(
        request.diScope.cradle.notifierOpener
          .list()
          .sort((a, b) => a.type.localeCompare(b.type))
          .map(toChannelType),
      ),
  );

  app.get(
    '/api/notifications/:id',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, response: { 200: envelopeOf(ChannelDetail) } },
    },
    async (request) => ok(detail(request, await request.diScope.cradle.notificationChannels.get(request.params.id))),
  );

  app.post(
    '/api/notifications',
    {
      config: { access: 'operator' },
      schema: { body: ChannelInput, response: { 200: envelopeOf(ChannelDetail) } },
    },
    async (request) => {
      const channel = await request.diScope.cradle.notificationChannels.create(request.body);
      await audit(request, 'create', channel);
      return ok(detail(request, channel));
    },
  );

  app.put(
    '/api/notifications/:id',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, body: ChannelUpdate, response: { 200: envelopeOf(ChannelDetail) } },
    },
    async (request) => {
      const channel = await request.diScope.cradle.notificationChannels.update(request.params.id, request.body);
      await audit(request, 'update', channel);
      return ok(detail(request, channel));
    },
  );

  app.delete(
    '/api/notifications/:id',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(Type.Object({ deleted: Type.Boolean() })) } },
    },
    async (request) => {
      const channel = await request.diScope.cradle.notificationChannels.delete(request.params.id);
      await audit(request, 'delete', channel);
      return ok({ deleted: true });
    },
  );

  app.post(
    '/api/notifications/test',
    {
      config: { access: 'operator' },
      schema: { body: ChannelTestInput, response: { 200: envelopeOf(TestResult) } },
    },
    async (request) => {
      const { notificationChannels, audit: writer } = request.diScope.cradle;
      try {
        return ok(await notificationChannels.testUnsaved(request.body));
      } finally {
        await writer.record(auditActor(request), {
          category: 'notification',
          action: 'test',
          targetType: 'notification',
          targetName: request.body.name ?? '',
          detail: `type=${request.body.type} unsaved`,
        });
      }
    },
  );

  app.post(
    '/api/notifications/:id/test',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(TestResult) } },
    },
    async (request) => {
      const { notificationChannels } = request.diScope.cradle;
      const channel = await notificationChannels.get(request.params.id);
      try {
        return ok(await notificationChannels.testSaved(channel.id));
      } finally {
        await audit(request, 'test', channel);
      }
    },
  );

  app.get(
    '/api/notifications/:id/deliveries',
    {
      config: { access: 'auth' },
      schema: {
        params: IdParams,
        querystring: Type.Object({ ...pageQuery(50, 500), ...DeliveryQuery.properties }),
        response: { 200: envelopeOf(Type.Array(DeliveryView)) },
      },
    },
    async (request, reply) => {
      const [items, total] = await request.diScope.cradle.notificationChannels.deliveries(
        request.params.id,
        request.query,
        request.query.status,
      );
      setTotal(reply, total);
      return ok(items);
    },
  );
}
