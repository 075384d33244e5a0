import { Paper, SimpleGrid, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatBytes } from '../../lib/time.ts';
import type { ResponseData } from '../../api/types.ts';

type Stats = ResponseData<'/api/dashboard/stats', 'get'>;

function Card({ label, value, hint }: { label: string; value: React.ReactNode; hint?: React.ReactNode }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz={26} fw={700} component="div">
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed" component="div">
          {hint}
        </Text>
      )}
    </Paper>
  );
}

/** The headline figures of GET /api/dashboard/stats. */
export function StatCards({ stats }: { stats: Stats }) {
  const { t } = useTranslation('dashboard');
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }} data-testid="stat-cards">
      <Card
        label={t('stats.tasks')}
        value={stats.totalTasks}
        hint={t('stats.tasksEnabled', { count: stats.enabledTasks })}
      />
      <Card label={t('stats.records')} value={stats.totalRecords} />
      <Card
        label={t('stats.successRate')}
        value={`${(stats.successRate * 100).toFixed(1)} %`}
        hint={t('stats.successRateHint')}
      />
      <Card
        label={t('stats.stored')}
        value={formatBytes(stats.totalBackupBytes)}
        hint={
          stats.deduplication.records > 0 &&
          t('stats.deduplication', {
            ratio: stats.deduplication.ratio.toFixed(1),
            read: formatBytes(stats.deduplication.bytesRead),
            added: formatBytes(stats.deduplication.bytesAdded),
          })
        }
      />
      <Card
        label={t('stats.lastBackup')}
        value={stats.lastBackupAt ? <RelativeTime value={stats.lastBackupAt} size="lg" /> : t('stats.noneYet')}
      />
    </SimpleGrid>
  );
}
