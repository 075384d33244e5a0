import { DonutChart } from '@mantine/charts';
import { SimpleGrid, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState.tsx';
import { formatBytes } from '../../lib/time.ts';
import { Panel } from './Panel.tsx';
import { useBreakdown } from './dashboard-queries.ts';

const PALETTE = [
  'indigo.6',
  'teal.6',
  'orange.5',
  'grape.6',
  'cyan.6',
  'lime.6',
  'pink.6',
  'yellow.6',
  'blue.4',
  'gray.5',
];
const STATUS_COLOUR: Record<string, string> = {
  success: 'teal.6',
  failed: 'red.6',
  partial: 'orange.5',
  running: 'blue.5',
  queued: 'gray.5',
  cancelled: 'gray.6',
};

type Item = { key: string; label: string; count: number; totalSize?: number };

function Donut({ title, items, byStatus }: { title: string; items: Item[]; byStatus?: boolean }) {
  const { t } = useTranslation('dashboard');
  return (
    <Stack gap={4} align="center">
      <Text size="sm" fw={500}>
        {title}
      </Text>
      {items.length === 0 ? (
        <Text size="xs" c="dimmed">
          {t('breakdown.empty')}
        </Text>
      ) : (
        <DonutChart
          size={120}
          thickness={18}
          withTooltip
          tooltipDataSource="segment"
          aria-label={title}
          data={items.map((i, n) => ({
            name: i.totalSize === undefined ? i.label : `${i.label} (${formatBytes(i.totalSize)})`,
            value: i.count,
            color: (byStatus ? STATUS_COLOUR[i.key] : undefined) ?? PALETTE[n % PALETTE.length]!,
          }))}
        />
      )}
      {/* The chart's figures as text too: a donut alone is unreadable to a screen reader. */}
      <Stack gap={0}>
        {items.slice(0, 6).map((i) => (
          <Text key={i.key} size="xs" c="dimmed">
            {i.label}: {i.count}
          </Text>
        ))}
      </Stack>
    </Stack>
  );
}

/** Tasks by type and node, runs by status, artifacts and bytes by target. */
export function BreakdownPanel({ days }: { days: number }) {
  const { t } = useTranslation('dashboard');
  const query = useBreakdown(days);
  return (
    <Panel title={t('breakdown.title')}>
      <QueryState query={query}>
        {(b) => (
          <SimpleGrid cols={{ base: 2, md: 4 }}>
            <Donut title={t('breakdown.byType')} items={b.byType} />
            <Donut title={t('breakdown.byStatus')} items={b.byStatus} byStatus />
            <Donut title={t('breakdown.byNode')} items={b.byNode} />
            <Donut title={t('breakdown.byStorage')} items={b.byStorage} />
          </SimpleGrid>
        )}
      </QueryState>
    </Panel>
  );
}
