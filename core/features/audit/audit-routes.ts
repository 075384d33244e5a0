import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { stringify } from 'csv-stringify';
import { envelopeOf, pageOf, pageQuery, rawResponse } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { paged } from '../../http/request-helpers.ts';
import { csvSafe, exportFileName } from '../../http/csv.ts';
import { AuditFilterQuery, AuditView, toAuditView } from './audit-query.ts';

const COLUMNS = [
  'Time (UTC)',
  'User',
  'Category',
  'Action',
  'Target type',
  'Target ID',
  'Target name',
  'Detail',
  'Client IP',
];

export async function auditRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/audit-logs',
    {
      config: { access: 'auth' },
      schema: {
        querystring: Type.Intersect([AuditFilterQuery, Type.Object(pageQuery(50, 500))]),
        // The one list the reference pages: `{items, total}`.
        response: { 200: envelopeOf(pageOf(AuditView)) },
      },
    },
    async (request, reply) => {
      const { limit, offset, ...filter } = request.query;
      const [rows, total] = await request.diScope.cradle.auditQuery.list(filter, { limit, offset });
      return ok(paged(reply, rows.map(toAuditView), total));
    },
  );

  app.get(
    '/api/audit-logs/export',
    {
      config: { access: 'auth' },
      schema: {
        querystring: AuditFilterQuery,
        response: { 200: rawResponse('The matching audit records as CSV (a download)', ['text/csv']) },
      },
    },
    async (request, reply) => {
      const { auditQuery } = request.diScope.cradle;
      const where = request.query;
      auditQuery.where(where); // validate before the headers go out
      async function* rows() {
        for await (const row of auditQuery.iterate(where)) {
          yield [
            row.createdAt.toISOString(),
            row.username,
            row.category,
            row.action,
            row.targetType,
            row.targetId,
            row.targetName,
            row.detail,
            row.clientIp,
          ].map(csvSafe);
        }
      }
      const csv = Readable.from(rows()).pipe(stringify({ header: true, columns: COLUMNS, bom: true }));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${exportFileName('audit')}"`)
        .send(csv);
    },
  );
}
