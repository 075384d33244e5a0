import type { ReactNode } from 'react';
import { Button } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { useListFilters } from './use-list-filters.ts';
import { FilterBar, type FilterField } from './FilterBar.tsx';
import { Pager } from './Pager.tsx';
import { PAGE_SIZE } from './record-queries.ts';
import { NO_FILTERS, type ListFilters } from './list-filters.ts';

/** The frame of the restore, verification and replication lists: filters, table, empty state, pages. */
export function RunListPage<T>({
  title,
  description,
  emptyTitle,
  emptyHint,
  fields,
  useList,
  children,
}: {
  title: string;
  description: string;
  emptyTitle: string;
  emptyHint: string;
  fields: readonly FilterField[];
  useList: (f: ListFilters) => UseQueryResult<{ items: T[]; total: number }>;
  children: (items: T[]) => ReactNode;
}) {
  const { t } = useTranslation('records');
  const [filters, setFilters] = useListFilters();
  const list = useList(filters);
  const filtered = JSON.stringify({ ...filters, page: 1 }) !== JSON.stringify(NO_FILTERS);
  return (
    <>
      <PageHeader title={title} description={description} />
      <FilterBar filters={filters} onChange={setFilters} fields={fields} />
      <QueryState query={list}>
        {({ items, total }) =>
          items.length === 0 ? (
            filtered ? (
              <EmptyState
                title={t('list.emptyFilteredTitle')}
                hint={t('list.emptyFilteredHint')}
                action={
                  <Button variant="default" onClick={() => setFilters({ ...NO_FILTERS })}>
                    {t('filter.clear')}
                  </Button>
                }
              />
            ) : (
              <EmptyState
                title={emptyTitle}
                hint={emptyHint}
                action={
                  <Button component={Link} to="/records">
                    {t('restores.goToRecords')}
                  </Button>
                }
              />
            )
          ) : (
            <>
              {children(items)}
              <Pager page={filters.page} total={total} pageSize={PAGE_SIZE} onPage={(page) => setFilters({ page })} />
            </>
          )
        }
      </QueryState>
    </>
  );
}
