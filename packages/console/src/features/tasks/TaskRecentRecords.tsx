import { Anchor, Card, Group, Progress, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { ResponseData } from '../../api/types.ts';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { formatBytes, formatDuration } from '../../lib/time.ts';

type RecordRow = ResponseData<'/api/backup/records', 'get'>[number];

/** The task's latest records with status, size and duration; each opens its record page. */
export function TaskRecentRecords({
  records,
  total,
  taskId,
  onWatch,
}: {
  records: RecordRow[];
  total: number;
  taskId: number;
  onWatch: (id: number) => void;
}) {
  const { t } = useTranslation('tasks');
  return (
    <Card withBorder mb="md">
      <Group justify="space-between" mb="xs">
        <Text fw={600} component="h2" size="lg">
          {t('detail.recentRecords')}
        </Text>
        {total > records.length && (
          <Anchor component={Link} to={`/records?taskId=${taskId}`} size="sm">
            {t('detail.allRecords', { count: total })}
          </Anchor>
        )}
      </Group>
      {records.length === 0 ? (
        <EmptyState title={t('detail.noRecords')} hint={t('detail.noRecordsHint')} />
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('retention.record')}</Table.Th>
                <Table.Th>{t('detail.status')}</Table.Th>
                <Table.Th>{t('detail.started')}</Table.Th>
                <Table.Th>{t('detail.duration')}</Table.Th>
                <Table.Th>{t('detail.size')}</Table.Th>
                <Table.Th>{t('detail.trigger')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {records.map((r) => {
                const active = r.state === 'running' || r.state === 'queued';
                return (
                  <Table.Tr key={r.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/records/${r.id}`} size="sm">
                        #{r.id}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={6} wrap="nowrap">
                        <StatusBadge status={r.state} />
                        {r.locked && (
                          <Text size="xs" c="dimmed">
                            {t('detail.locked')}
                          </Text>
                        )}
                      </Group>
                      {active && (
                        <Anchor component="button" type="button" size="xs" onClick={() => onWatch(r.id)}>
                          {t('detail.watch')}
                        </Anchor>
                      )}
                      {active && (
                        <Progress
                          value={100}
                          striped
                          animated
                          size="xs"
                          mt={2}
                          aria-label={t('liveLog.progressLabel')}
                        />
                      )}
                    </Table.Td>
                    <Table.Td>
                      <RelativeTime value={r.startedAt ?? r.queuedAt} />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{active ? '—' : formatDuration(r.durationSeconds)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{r.fileSize ? formatBytes(r.fileSize) : '—'}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {r.trigger}
                        {r.triggeredBy ? ` · ${r.triggeredBy}` : ''}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
