import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { stringify } from 'csv-stringify';
import { envelopeOf, rawResponse, Timestamp } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { exportFileName } from '../../http/csv.ts';
import { complianceReport } from './compliance-report.ts';
import { CSV_COLUMNS, csvRows, complianceHtml } from './compliance-export.ts';
import { RtoStatus } from '../dashboard/dashboard-schemas.ts';

const Int = Type.Integer();
const Row = Type.Object({
  taskId: Int,
  taskName: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  nodeName: Type.String(),
  cronExpr: Type.String(),
  encrypted: Type.Boolean(),
  retentionDays: Int,
  slaHoursRpo: Int,
  totalRuns: Int,
  successes: Int,
  failures: Int,
  successRate: Type.Number(),
  lastStatus: Type.String(),
  lastRunAt: Type.Optional(Timestamp),
  lastSuccessAt: Type.Optional(Timestamp),
  protectedBytes: Int,
  compliant: Type.Boolean(),
  risk: Type.Union([Type.Literal('ok'), Type.Literal('at_risk'), Type.Literal('not_applicable')]),
  rtoMinutes: Int,
  rtoStatus: Type.Union([RtoStatus, Type.Literal('not_set')]),
  measuredRestoreMinutes: Type.Union([Type.Number(), Type.Null()]),
  lastDeepVerifyStatus: Type.String(),
  lastDeepVerifyAt: Type.Optional(Timestamp),
});
const Report = Type.Object({
  generatedAt: Timestamp,
  rangeDays: Int,
  summary: Type.Object({
    totalTasks: Int,
    enabledTasks: Int,
    compliantTasks: Int,
    atRiskTasks: Int,
    encryptedTasks: Int,
    overallSuccessRate: Type.Number(),
    totalProtectedBytes: Int,
    rtoExceededTasks: Int,
    rtoUnmeasuredTasks: Int,
  }),
  tasks: Type.Array(Row),
});
const Days = Type.Integer({ minimum: 1, maximum: 365, default: 30 });

/** Spec 4.5: compliance evidence as JSON (or a printable page, `format=html`) and as CSV. */
export async function complianceRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/reports/compliance',
    {
      config: { access: 'auth' },
      schema: {
        querystring: Type.Object({
          days: Days,
          format: Type.Union([Type.Literal('json'), Type.Literal('html')], { default: 'json' }),
        }),
        // By media type: the envelope as JSON, or (format=html) the printable page, a string Fastify sends as it is.
        response: {
          200: {
            description: 'The report, or with format=html a printable page',
            content: { 'application/json': { schema: envelopeOf(Report) }, 'text/html': { schema: Type.String() } },
          },
        },
      },
    },
    async (request, reply) => {
      const { em, config, settings } = request.diScope.cradle;
      const report = await complianceReport(em, config, request.query.days);
      if (request.query.format === 'html') {
        return reply
          .type('text/html; charset=utf-8')
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
          .send(complianceHtml(report, (await settings.values()).site_name || 'Backplane'));
      }
      return ok(report);
    },
  );

  app.get(
    '/api/reports/compliance/export',
    {
      config: { access: 'auth' },
      schema: {
        querystring: Type.Object({ days: Days }),
        response: { 200: rawResponse('The report as CSV (a download)', ['text/csv']) },
      },
    },
    async (request, reply) => {
      const { em, config } = request.diScope.cradle;
      const report = await complianceReport(em, config, request.query.days);
      const csv = Readable.from(csvRows(report)).pipe(
        stringify({ header: true, columns: CSV_COLUMNS.map(([name]) => name), bom: true }),
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${exportFileName('compliance')}"`)
        .send(csv);
    },
  );
}
