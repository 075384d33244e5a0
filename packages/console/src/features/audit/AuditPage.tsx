import { useState } from 'react';
import { Button, Group, Pagination, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { downloadFile } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import {
  auditQueryString,
  filtersFromSearch,
  searchFromFilters,
  NO_FILTERS,
  type AuditFilters,
} from './audit-filters.ts';
import { auditPageQuery, PAGE_SIZE } from './queries.ts';
import { AuditFilterBar } from './AuditFilterBar.tsx';
import { AuditTable } from './AuditTable.tsx';
import { AuditEntryDrawer, type AuditEntry } from './AuditEntryDrawer.tsx';

/** /audit: the audit log, filtered by the list route's querystring (kept in the URL), paged, exportable as CSV. */
export function AuditPage() {
  const { t } = useTranslation('audit');
  const [params, setParams] = useSearchParams();
  const { filters, page } = filtersFromSearch(params);
  const [open, setOpen] = useState<AuditEntry | null>(null);
  const query = useQuery(auditPageQuery(filters, page));
  const exportCsv = useMutation({
    mutationFn: () => downloadFile(`/api/audit-logs/export${auditQueryString(filters)}`, 'audit.csv'),
  });
  const go = (next: AuditFilters, nextPage = 1) => setParams(searchFromFilters(next, nextPage));
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
  return (
    <>
      <PageHeader
        title={t('title')}
        description={t('description')}
        actions={
          <Button
            variant="default"
            leftSection={<IconDownload size={16} />}
            loading={exportCsv.isPending}
            onClick={() => exportCsv.mutate()}
            title={t('exportHint')}
          >
            {t('export')}
          </Button>
        }
      />
      <ErrorAlert error={exportCsv.error} />
      {/* Re-mounted when the URL's filters change (back button, reset), so the inputs show them. */}
      <AuditFilterBar key={params.toString()} value={filters} onApply={(f) => go(f)} />
      <QueryState query={query}>
        {({ items, total }) =>
          items.length === 0 ? (
            <EmptyState title={t('empty.title')} hint={filtered ? t('empty.filtered') : t('empty.none')} />
          ) : (
            <>
              <AuditTable items={items} onOpen={setOpen} />
              <Group justify="space-between" mt="sm" wrap="wrap">
                <Text size="sm" c="dimmed">
                  {t('pager.showing', {
                    from: (page - 1) * PAGE_SIZE + 1,
                    to: Math.min(total, page * PAGE_SIZE),
                    total,
                  })}
                </Text>
                {total > PAGE_SIZE && (
                  <Pagination
                    total={Math.ceil(total / PAGE_SIZE)}
                    value={page}
                    onChange={(p) => go(filters, p)}
                    size="sm"
                    aria-label={t('pager.label')}
                  />
                )}
              </Group>
            </>
          )
        }
      </QueryState>
      <AuditEntryDrawer entry={open} onClose={() => setOpen(null)} />
    </>
  );
}
