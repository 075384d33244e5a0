import { Paper, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState.tsx';
import { formatBytes } from '../../lib/time.ts';
import { fetchUsage, targetKeys } from './target-queries.ts';

/** What Backplane stored on a target (records, bytes, against the quota) and the backend's own capacity when it reports it. */
export function TargetUsage({ id }: { id: number }) {
  const { t } = useTranslation('targets');
  const query = useQuery({ queryKey: targetKeys.usage(id), queryFn: () => fetchUsage(id), staleTime: 60_000 });
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="sm">
        {t('usage.title')}
      </Title>
      <QueryState query={query}>
        {(usage) => {
          const disk = usage.diskUsage;
          const quotaPct = usage.quotaBytes > 0 ? Math.min(100, (usage.totalSize / usage.quotaBytes) * 100) : undefined;
          const diskPct =
            disk?.total && disk.used !== undefined ? Math.min(100, (disk.used / disk.total) * 100) : undefined;
          return (
            <Stack gap="sm">
              <SimpleGrid cols={{ base: 1, xs: 3 }}>
                <Stat label={t('usage.records')} value={String(usage.recordCount)} />
                <Stat label={t('usage.stored')} value={formatBytes(usage.totalSize)} />
                <Stat
                  label={t('usage.quota')}
                  value={usage.quotaBytes > 0 ? formatBytes(usage.quotaBytes) : t('usage.noQuota')}
                />
              </SimpleGrid>
              {quotaPct !== undefined && (
                <Progress value={quotaPct} color={quotaPct > 90 ? 'red' : 'indigo'} aria-label={t('usage.quota')} />
              )}
              <Text size="sm" fw={500}>
                {t('usage.disk')}
              </Text>
              {disk && (disk.total !== undefined || disk.used !== undefined || disk.free !== undefined) ? (
                <>
                  {diskPct !== undefined && (
                    <Progress value={diskPct} color={diskPct > 90 ? 'red' : 'teal'} aria-label={t('usage.disk')} />
                  )}
                  <Text size="sm">
                    {disk.total !== undefined && disk.used !== undefined
                      ? t('usage.used', { used: formatBytes(disk.used), total: formatBytes(disk.total) })
                      : formatBytes(disk.used)}
                    {disk.free !== undefined && ` · ${t('usage.free', { free: formatBytes(disk.free) })}`}
                  </Text>
                </>
              ) : (
                <Text size="sm" c="dimmed">
                  {t('usage.noDisk')}
                </Text>
              )}
            </Stack>
          );
        }}
      </QueryState>
    </Paper>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600}>{value}</Text>
    </div>
  );
}
