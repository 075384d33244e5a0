import { BarChart } from '@mantine/charts';
import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '../../lib/time.ts';
import { Panel } from './Panel.tsx';
import type { ResponseData } from '../../api/types.ts';

type Usage = ResponseData<'/api/dashboard/stats', 'get'>['storageUsage'];

/** Bytes each target holds (replicas counted where they live), from the stats' storageUsage. */
export function StoragePanel({ usage }: { usage: Usage }) {
  const { t } = useTranslation('dashboard');
  return (
    <Panel title={t('storage.title')}>
      {usage.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('storage.empty')}
        </Text>
      ) : (
        <BarChart
          h={Math.max(120, usage.length * 36)}
          data={usage}
          dataKey="targetName"
          orientation="vertical"
          series={[{ name: 'totalSize', label: t('storage.size'), color: 'indigo.6' }]}
          valueFormatter={(v) => formatBytes(v)}
          yAxisProps={{ width: 120 }}
        />
      )}
    </Panel>
  );
}
