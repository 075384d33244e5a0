import { Alert, Anchor, Button, Group, Paper, Text, Title } from '@mantine/core';
import { IconRestore } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { LiveLog } from '../../components/LiveLog.tsx';
import { useCan } from '../../app/use-session.ts';
import { useBackupRecord } from './record-queries.ts';
import { RecordFacts } from './RecordFacts.tsx';
import { RecordActions } from './RecordActions.tsx';
import { CopiesTable } from './CopiesTable.tsx';
import { ContentsBrowser } from './ContentsBrowser.tsx';
import { RestoreDialog } from './RestoreDialog.tsx';
import { hasArtifact, isActive } from './run-state.ts';

/**
 * /records/:id: a backup record's facts, copies, live log, actions, and (for file records) its
 * contents with selective restore; database records restore from a button.
 */
export function RecordDetailPage() {
  const { t } = useTranslation('records');
  const id = Number(useParams().id);
  const can = useCan();
  const queryClient = useQueryClient();
  const record = useBackupRecord(id);
  const [restoring, setRestoring] = useState(false);
  const r = record.data;
  // While running, the task's last successful run's raw size turns the log's bytes into a percentage.
  const previous = useQuery({
    queryKey: ['backup-records', 'last-success', r?.taskId],
    enabled: r !== undefined && isActive(r.state),
    queryFn: () =>
      unwrap(
        api.GET('/api/backup/records', {
          params: { query: { taskId: r?.taskId, status: 'success', limit: 1, offset: 0 } },
        }),
      ),
  });
  return (
    <QueryState query={record}>
      {(r) => {
        const source = { id: r.id, type: r.type, fileName: r.fileName, nodeId: r.nodeId, hasContents: r.hasContents };
        const artifact = hasArtifact(r.state);
        return (
          <>
            <PageHeader
              title={t('detail.title', { id: r.id })}
              description={r.taskName}
              actions={<RecordActions record={r} />}
            />
            <Paper withBorder p="md">
              <RecordFacts record={r} />
            </Paper>
            {r.errorMessage && (
              <Alert
                color={r.state === 'partial' ? 'orange' : 'red'}
                title={r.errorCode ? `${t('detail.error')}: ${r.errorCode}` : t('detail.error')}
                mt="md"
                role="alert"
              >
                {r.errorMessage}
              </Alert>
            )}
            <CopiesTable recordId={r.id} fileName={r.fileName} copies={r.storageUploadResults} />
            <Title order={2} size="h4" mt="lg" mb="xs">
              {isActive(r.state) ? t('detail.liveLog') : t('detail.log')}
            </Title>
            <LiveLog
              path={`/api/backup/records/${r.id}/logs/stream`}
              expectedBytes={previous.data?.[0]?.rawSize ?? null}
              onDone={() => void queryClient.invalidateQueries({ queryKey: ['backup-records'] })}
            />
            {artifact && r.type === 'file' && r.hasContents && (
              <ContentsBrowser source={source} canRestore={can('write')} />
            )}
            {artifact && r.type === 'file' && !r.hasContents && (
              <Text size="sm" c="dimmed" mt="lg">
                {t('contents.unavailable')}
              </Text>
            )}
            {artifact && can('write') && (r.type !== 'file' || !r.hasContents) && (
              <Group mt="md">
                <Button leftSection={<IconRestore size={16} />} onClick={() => setRestoring(true)}>
                  {r.type === 'file' ? t('actions.restoreAll') : t('actions.restoreDatabase')}
                </Button>
              </Group>
            )}
            {restoring && (
              <RestoreDialog source={source} selectedPaths={[]} opened onClose={() => setRestoring(false)} />
            )}
            <Title order={2} size="h4" mt="lg" mb="xs">
              {t('detail.related')}
            </Title>
            <Group gap="lg">
              <Anchor component={Link} to={`/restores?backupRecordId=${r.id}`}>
                {t('detail.restoresOf')}
              </Anchor>
              <Anchor component={Link} to={`/verifications?backupRecordId=${r.id}`}>
                {t('detail.verificationsOf')}
              </Anchor>
              <Anchor component={Link} to={`/replications?backupRecordId=${r.id}`}>
                {t('detail.replicationsOf')}
              </Anchor>
            </Group>
          </>
        );
      }}
    </QueryState>
  );
}
