import { AreaChart } from '@mantine/charts';
import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState.tsx';
import { Panel } from './Panel.tsx';
import { useTimeline } from './dashboard-queries.ts';
import { timelineSeries, timelineTotals } from './timeline-series.ts';

/** Successes, partial runs and failures per UTC day over the chosen window. */
export function TimelinePanel({ days }: { days: number }) {
  const { t } = useTranslation('dashboard');
  const query = useTimeline(days);
  return (
    <Panel title={t('timeline.title')}>
      <QueryState query={query}>
        {(points) => {
          const rows = timelineSeries(points, days, Date.now());
          const totals = timelineTotals(rows);
          if (totals.runs === 0)
            return (
              <Text c="dimmed" size="sm">
                {t('timeline.empty')}
              </Text>
            );
          return (
            <>
              <AreaChart
                h={240}
                data={rows}
                dataKey="date"
                type="stacked"
                curveType="monotone"
                withDots={false}
                withLegend
                series={[
                  { name: 'success', label: t('timeline.success'), color: 'teal.6' },
                  { name: 'partial', label: t('timeline.partial'), color: 'orange.5' },
                  { name: 'failed', label: t('timeline.failed'), color: 'red.6' },
                ]}
                xAxisProps={{ tickFormatter: (d: string) => d.slice(5) }}
              />
              <Text size="xs" c="dimmed">
                {t('timeline.totals', totals)}
              </Text>
            </>
          );
        }}
      </QueryState>
    </Panel>
  );
}
