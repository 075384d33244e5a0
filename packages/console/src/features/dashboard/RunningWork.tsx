import { Anchor, Group, Progress, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { progressPercent } from '../../components/live-log-state.ts';
import { formatBytes } from '../../lib/time.ts';
import type { ResponseData } from '../../api/types.ts';
import { Panel } from './Panel.tsx';
import { useRunningRecords } from './dashboard-queries.ts';

type Record = ResponseData<'/api/backup/records', 'get'>[number];

/** The task's last successful raw size: what a running backup is likely to read (for a percentage). */
function useExpectedBytes(taskId: number) {
  return useQuery({
    queryKey: ['dashboard', 'expected-bytes', taskId],
    staleTime: 5 * 60_000,
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/backup/records', { params: { query: { taskId, status: 'success', limit: 1, offset: 0 } } }),
        )
      )[0]?.rawSize ?? null,
  }).data;
}

function RunningRow({ record }: { record: Record }) {
  const { t } = useTranslation('dashboard');
  const queued = record.state === 'queued';
  // The record's last progress frame, as the list (polled while something runs) reports it.
  const progress = record.progress;
  const percent = progressPercent(progress, useExpectedBytes(record.taskId));
  return (
    <Stack gap={4} data-testid="running-record">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Group gap="xs">
          <Anchor
            component={Link}
            to={`/records/${record.id}`}
            fw={500}
            aria-label={t('running.open', { name: record.taskName })}
          >
            {record.taskName}
          </Anchor>
          <StatusBadge status={record.state} />
        </Group>
        <Text size="xs" c="dimmed" component="div">
          {progress &&
            t('running.progress', {
              read: formatBytes(progress.bytesRead),
              speed: formatBytes(progress.speedBps),
            })}{' '}
          <RelativeTime value={record.startedAt ?? record.queuedAt} size="xs" />
        </Text>
      </Group>
      <Progress
        value={queued ? 100 : (percent ?? 100)}
        striped
        animated={!queued}
        color={queued ? 'gray' : 'blue'}
        aria-label={t('running.progressLabel', { name: record.taskName })}
        {...(percent === null ? {} : { 'aria-valuenow': percent })}
      />
    </Stack>
  );
}

/** Runs queued or running now, each with a progress bar and a link to its record. */
export function RunningWork() {
  const { t } = useTranslation('dashboard');
  const query = useRunningRecords();
  return (
    <Panel title={t('running.title')}>
      <QueryState query={query}>
        {({ items }) =>
          items.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('running.empty')}
            </Text>
          ) : (
            <Stack gap="sm">
              {items.map((r) => (
                <RunningRow key={r.id} record={r} />
              ))}
            </Stack>
          )
        }
      </QueryState>
    </Panel>
  );
}
