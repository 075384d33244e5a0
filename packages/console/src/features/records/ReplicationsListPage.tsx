import { Anchor, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatBytes, formatDuration } from '../../lib/time.ts';
import { RunListPage } from './RunListPage.tsx';
import { RunStatus } from './RunStatus.tsx';
import { useReplications } from './record-queries.ts';
import { isActive } from './run-state.ts';

/** /replications: every copy to a further target, filtered by task, record, destination, status and date. */
export function ReplicationsListPage() {
  const { t } = useTranslation('records');
  return (
    <RunListPage
      title={t('replications.title')}
      description={t('replications.description')}
      emptyTitle={t('replications.emptyTitle')}
      emptyHint={t('replications.emptyHint')}
      fields={['task', 'status', 'backupRecord', 'destTarget', 'dates']}
      useList={useReplications}
    >
      {(items) => (
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing="xs" data-testid="replications-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('col.id')}</Table.Th>
                <Table.Th>{t('col.task')}</Table.Th>
                <Table.Th>{t('col.record')}</Table.Th>
                <Table.Th>{t('col.status')}</Table.Th>
                <Table.Th>{t('col.destination')}</Table.Th>
                <Table.Th>{t('col.size')}</Table.Th>
                <Table.Th>{t('col.duration')}</Table.Th>
                <Table.Th>{t('col.queued')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/replications/${r.id}`}>
                      #{r.id}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/replications/${r.id}`} fw={500}>
                      {r.taskName}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/records/${r.backupRecordId}`}>
                      {t('run.openRecord', { id: r.backupRecordId })}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <RunStatus state={r.state} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      {r.sourceTargetName || '—'} → {r.destTargetName}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{r.fileSize ? formatBytes(r.fileSize) : '—'}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{isActive(r.state) ? '—' : formatDuration(r.durationSeconds)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <RelativeTime value={r.queuedAt} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </RunListPage>
  );
}
