import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.ts';
import type { paths } from '../../api/schema';

/** The route also answers HTML (`format=html`), so its 200 is a union: the JSON report is the object member. */
type Json = paths['/api/reports/compliance']['get']['responses'][200]['content']['application/json'];
export type ComplianceReport = Extract<Json, { data: unknown }>['data'];
export type ComplianceRow = ComplianceReport['tasks'][number];

export function useComplianceReport(days: number) {
  return useQuery({
    queryKey: ['reports', 'compliance', days],
    // Asked with format=json, the answer is the envelope: narrowed from the union here.
    queryFn: () =>
      unwrap(
        api.GET('/api/reports/compliance', { params: { query: { days, format: 'json' } } }) as Promise<{
          data?: { data: ComplianceReport };
          error?: unknown;
          response: Response;
        }>,
      ),
  });
}
