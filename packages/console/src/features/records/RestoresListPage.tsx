import { Anchor, Code, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatBytes, formatDuration } from '../../lib/time.ts';
import { RunListPage } from './RunListPage.tsx';
import { RunStatus } from './RunStatus.tsx';
import { useRestores } from './record-queries.ts';
import { isActive } from './run-state.ts';

/** /restores: every restore, filtered by task, backup record, status and date. */
export function RestoresListPage() {
  const { t } = useTranslation('records');
  return (
    <RunListPage
      title={t('restores.title')}
      description={t('restores.description')}
      emptyTitle={t('restores.emptyTitle')}
      emptyHint={t('restores.emptyHint')}
      fields={['task', 'status', 'backupRecord', 'dates']}
      useList={useRestores}
    >
      {(items) => (
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing="xs" data-testid="restores-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('col.id')}</Table.Th>
                <Table.Th>{t('col.task')}</Table.Th>
                <Table.Th>{t('col.record')}</Table.Th>
                <Table.Th>{t('col.status')}</Table.Th>
                <Table.Th>{t('restores.target')}</Table.Th>
                <Table.Th>{t('restores.bytes')}</Table.Th>
                <Table.Th>{t('col.duration')}</Table.Th>
                <Table.Th>{t('col.queued')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/restores/${r.id}`}>
                      #{r.id}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/restores/${r.id}`} fw={500}>
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
                    {r.type === 'file' ? (
                      <Code>{r.targetPath || t('restores.original')}</Code>
                    ) : (
                      <Code>{r.targetDatabase || t('restores.taskDatabase')}</Code>
                    )}
                    {(r.selectedPaths.length > 0 || r.databases.length > 0) && (
                      <Text size="xs" c="dimmed">
                        {t('restores.selection')}: {[...r.selectedPaths, ...r.databases].length}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{r.bytes ? formatBytes(r.bytes) : '—'}</Text>
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
