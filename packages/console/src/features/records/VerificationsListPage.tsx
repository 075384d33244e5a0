import { Anchor, Badge, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatDuration } from '../../lib/time.ts';
import { RunListPage } from './RunListPage.tsx';
import { RunStatus } from './RunStatus.tsx';
import { useVerifications } from './record-queries.ts';
import { isActive } from './run-state.ts';

/** /verifications: every verification, filtered by task, backup record, status and date. */
export function VerificationsListPage() {
  const { t } = useTranslation('records');
  return (
    <RunListPage
      title={t('verifications.title')}
      description={t('verifications.description')}
      emptyTitle={t('verifications.emptyTitle')}
      emptyHint={t('verifications.emptyHint')}
      fields={['task', 'status', 'backupRecord', 'dates']}
      useList={useVerifications}
    >
      {(items) => (
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing="xs" data-testid="verifications-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('col.id')}</Table.Th>
                <Table.Th>{t('col.task')}</Table.Th>
                <Table.Th>{t('col.record')}</Table.Th>
                <Table.Th>{t('col.mode')}</Table.Th>
                <Table.Th>{t('col.status')}</Table.Th>
                <Table.Th>{t('col.summary')}</Table.Th>
                <Table.Th>{t('col.duration')}</Table.Th>
                <Table.Th>{t('col.queued')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((v) => (
                <Table.Tr key={v.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/verifications/${v.id}`}>
                      #{v.id}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/verifications/${v.id}`} fw={500}>
                      {v.taskName}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/records/${v.backupRecordId}`}>
                      {t('run.openRecord', { id: v.backupRecordId })}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="outline" color={v.mode === 'deep' ? 'violet' : 'gray'}>
                      {v.mode}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <RunStatus state={v.state} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" lineClamp={2} maw={320}>
                      {v.summary || v.errorMessage || '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{isActive(v.state) ? '—' : formatDuration(v.durationSeconds)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <RelativeTime value={v.queuedAt} />
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
