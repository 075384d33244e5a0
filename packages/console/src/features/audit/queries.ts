import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, unwrapPage } from '../../api/client.ts';
import { auditQuery, type AuditFilters } from './audit-filters.ts';

export const PAGE_SIZE = 50;

/** One page of the audit log; the total is the X-Total-Count header. */
export const auditPageQuery = (filters: AuditFilters, page: number) =>
  queryOptions({
    queryKey: ['audit', filters, page],
    queryFn: async () => {
      const { items, total } = await unwrapPage(
        api.GET('/api/audit-logs', {
          params: { query: { ...auditQuery(filters), limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE } },
        }),
      );
      return { items: items.items, total };
    },
    placeholderData: keepPreviousData,
  });
