import { useState } from 'react';
import { Button } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { useCan } from '../../app/use-session.ts';
import { useListFilters } from './use-list-filters.ts';
import { FilterBar } from './FilterBar.tsx';
import { Pager } from './Pager.tsx';
import { RecordsTable } from './RecordsTable.tsx';
import { BatchDeleteButton } from './BatchDeleteButton.tsx';
import { PAGE_SIZE, useBackupRecords } from './record-queries.ts';
import { NO_FILTERS } from './list-filters.ts';

/** /records: every backup run, filtered by task, status, node and date, paged; writers delete in batches. */
export function RecordsListPage() {
  const { t } = useTranslation('records');
  const can = useCan();
  const [filters, setFilters] = useListFilters();
  const [selected, setSelected] = useState<number[]>([]);
  const records = useBackupRecords(filters);
  const filtered = JSON.stringify({ ...filters, page: 1 }) !== JSON.stringify(NO_FILTERS);
  return (
    <>
      <PageHeader
        title={t('list.title')}
        description={t('list.description')}
        actions={
          can('write') && selected.length > 0 && <BatchDeleteButton ids={selected} onDone={() => setSelected([])} />
        }
      />
      <FilterBar
        filters={filters}
        onChange={(p) => {
          setSelected([]);
          setFilters(p);
        }}
        fields={['task', 'status', 'node', 'dates']}
      />
      <QueryState query={records}>
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
                title={t('list.emptyTitle')}
                hint={t('list.emptyHint')}
                action={
                  <Button component={Link} to="/tasks">
                    {t('list.goToTasks')}
                  </Button>
                }
              />
            )
          ) : (
            <>
              <RecordsTable records={items} selectable={can('write')} selected={selected} onSelect={setSelected} />
              <Pager
                page={filters.page}
                total={total}
                pageSize={PAGE_SIZE}
                onPage={(page) => {
                  setSelected([]);
                  setFilters({ page });
                }}
              />
            </>
          )
        }
      </QueryState>
    </>
  );
}
