import { useState } from 'react';
// The charts' styles travel with the dashboard, their only user, so other pages do not load them.
import '@mantine/charts/styles.css';
import { Badge, Group, SegmentedControl, SimpleGrid, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useStats, useTargetCount } from './dashboard-queries.ts';
import { useLiveDashboard } from './use-live-dashboard.ts';
import { needsGettingStarted } from './getting-started.ts';
import { GettingStarted } from './GettingStarted.tsx';
import { StatCards } from './StatCards.tsx';
import { RunningWork } from './RunningWork.tsx';
import { TimelinePanel } from './TimelinePanel.tsx';
import { SlaPanel } from './SlaPanel.tsx';
import { ClusterPanel } from './ClusterPanel.tsx';
import { BreakdownPanel } from './BreakdownPanel.tsx';
import { NodePerformancePanel } from './NodePerformancePanel.tsx';
import { StoragePanel } from './StoragePanel.tsx';
import { RecentRuns } from './RecentRuns.tsx';

const WINDOWS = [7, 30, 90] as const;

/** `/`: the figures, the runs going on, objectives, cluster, breakdowns; live from the event stream. */
export function DashboardPage() {
  const { t } = useTranslation('dashboard');
  const [days, setDays] = useState<number>(30);
  const live = useLiveDashboard();
  const stats = useStats();
  const targets = useTargetCount();
  return (
    <>
      <PageHeader
        title={t('title')}
        description={t('description')}
        actions={
          <Group gap="xs">
            <Badge variant="dot" color={live ? 'teal' : 'gray'} aria-label={t('live.label')}>
              {live ? t('live.connected') : t('live.reconnecting')}
            </Badge>
            <SegmentedControl
              size="xs"
              aria-label={t('window.label')}
              value={String(days)}
              onChange={(v) => setDays(Number(v))}
              data={WINDOWS.map((d) => ({ value: String(d), label: t('window.days', { count: d }) }))}
            />
          </Group>
        }
      />
      <QueryState query={stats}>
        {(s) => {
          const facts = { targets: targets.data ?? 0, tasks: s.totalTasks, records: s.totalRecords };
          return (
            <Stack gap="md">
              {targets.isSuccess && needsGettingStarted(facts) && <GettingStarted {...facts} />}
              <StatCards stats={s} />
              <RunningWork />
              <SimpleGrid cols={{ base: 1, lg: 2 }}>
                <TimelinePanel days={days} />
                <SlaPanel />
                <ClusterPanel />
                <StoragePanel usage={s.storageUsage} />
              </SimpleGrid>
              <BreakdownPanel days={days} />
              <NodePerformancePanel days={days} />
              <RecentRuns records={s.recentRecords} />
            </Stack>
          );
        }}
      </QueryState>
    </>
  );
}
