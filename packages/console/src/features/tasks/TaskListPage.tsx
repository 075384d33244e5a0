import { useMemo, useState } from 'react';
import { Button, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useCan } from '../../app/use-session.ts';
import {
  useNodes,
  useScheduleZone,
  useStorageTargets,
  useTaskList,
  useTaskTags,
  useTaskTypes,
} from './task-queries.ts';
import { filtersFromSearch, filtersToSearch, matchesFilters, type TaskFilters } from './task-filters.ts';
import { TaskFiltersBar, type NodeOption } from './TaskFiltersBar.tsx';
import { TaskTable } from './TaskTable.tsx';
import { TaskBatchBar } from './TaskBatchBar.tsx';
import { TaskTransferButtons } from './TaskTransferButtons.tsx';

/** /tasks: every backup task with filters, last and next run, and (for writers) batch actions. */
export function TaskListPage() {
  const { t } = useTranslation('tasks');
  const can = useCan();
  const canWrite = can('write');
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch((k) => search.get(k));
  const setFilters = (f: TaskFilters) => setSearch(filtersToSearch(f), { replace: true });
  const [selected, setSelected] = useState<number[]>([]);
  const tasks = useTaskList();
  const tags = useTaskTags();
  const types = useTaskTypes();
  const targets = useStorageTargets();
  const nodes = useNodes();
  const zone = useScheduleZone();

  const nodeNames = useMemo(() => new Map((nodes.data ?? []).map((n) => [n.id, n.name])), [nodes.data]);
  const nodeOptions: NodeOption[] = useMemo(() => {
    const pools = [...new Set((tasks.data?.items ?? []).map((x) => x.nodeLabel).filter(Boolean))];
    return [
      { value: 'master', label: t('placement.master') },
      ...(nodes.data ?? []).filter((n) => !n.isLocal).map((n) => ({ value: String(n.id), label: n.name })),
      ...pools.map((p) => ({ value: `pool:${p}`, label: t('placement.poolNamed', { label: p }) })),
    ];
  }, [nodes.data, tasks.data, t]);

  const newButton = canWrite && (
    <Button component={Link} to="/tasks/new" leftSection={<IconPlus size={16} />}>
      {t('list.new')}
    </Button>
  );
  return (
    <>
      <PageHeader
        title={t('list.title')}
        description={t('list.description')}
        actions={
          <>
            <TaskTransferButtons selected={selected} canWrite={canWrite} />
            {newButton}
          </>
        }
      />
      <QueryState query={tasks}>
        {({ items }) => {
          if (items.length === 0) {
            const noTarget = targets.isSuccess && targets.data.length === 0;
            return noTarget ? (
              <EmptyState
                title={t('empty.noTargetTitle')}
                hint={t('empty.noTargetHint')}
                action={
                  canWrite && (
                    <Button component={Link} to="/targets/new">
                      {t('empty.createTarget')}
                    </Button>
                  )
                }
              />
            ) : (
              <EmptyState
                title={t('empty.noTaskTitle')}
                hint={t('empty.noTaskHint')}
                action={
                  canWrite && (
                    <Button component={Link} to="/tasks/new">
                      {t('empty.createTask')}
                    </Button>
                  )
                }
              />
            );
          }
          const shown = items.filter((x) => matchesFilters(x, filters));
          const visibleSelected = selected.filter((id) => shown.some((x) => x.id === id));
          return (
            <>
              <TaskFiltersBar
                filters={filters}
                onChange={setFilters}
                types={types.data ?? [...new Set(items.map((x) => x.type))]}
                tags={tags.data ?? []}
                nodes={nodeOptions}
              />
              {canWrite && <TaskBatchBar ids={visibleSelected} onDone={() => setSelected([])} />}
              {shown.length === 0 ? (
                <Text c="dimmed" py="md">
                  {t('list.noMatch')}
                </Text>
              ) : (
                <TaskTable
                  tasks={shown}
                  selected={visibleSelected}
                  onSelect={setSelected}
                  canWrite={canWrite}
                  timeZone={zone}
                  nodeNames={nodeNames}
                />
              )}
            </>
          );
        }}
      </QueryState>
    </>
  );
}
