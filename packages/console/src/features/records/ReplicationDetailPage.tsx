import { Alert, Code, Paper, Text } from '@mantine/core';
import { useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatBytes } from '../../lib/time.ts';
import { Facts } from './Facts.tsx';
import { runHead, runTimes } from './run-facts.tsx';
import { isActive } from './run-state.ts';

/**
 * /replications/:id: source and destination, the copy's path, size and checksum. The API has no
 * log stream and no cancel for replications, so the page refreshes while it runs.
 */
export function ReplicationDetailPage() {
  const { t } = useTranslation('records');
  const id = Number(useParams().id);
  const replication = useQuery({
    queryKey: ['replication-records', id],
    queryFn: () => unwrap(api.GET('/api/replication/records/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.state) ? 3000 : false),
  });
  return (
    <QueryState query={replication}>
      {(r) => (
        <>
          <PageHeader title={t('replications.detailTitle', { id: r.id })} description={r.taskName} />
          <Paper withBorder p="md">
            <Facts
              items={[
                ...runHead(r, t),
                [t('col.source'), r.sourceTargetName || '—'],
                [t('col.destination'), r.destTargetName],
                [t('replications.storagePath'), r.storagePath ? <Code>{r.storagePath}</Code> : '—'],
                [t('replications.fileSize'), r.fileSize ? formatBytes(r.fileSize) : '—'],
                [
                  t('replications.checksum'),
                  r.checksum ? <Code style={{ wordBreak: 'break-all' }}>{r.checksum}</Code> : '—',
                ],
                ...runTimes(r, t),
              ]}
            />
          </Paper>
          {r.errorMessage && (
            <Alert color={r.state === 'cancelled' ? 'gray' : 'red'} title={t('run.error')} mt="md" role="alert">
              {r.errorMessage}
            </Alert>
          )}
          <Text size="sm" c="dimmed" mt="md">
            {isActive(r.state) ? t('run.stillRunning') : t('replications.noLog')}
          </Text>
        </>
      )}
    </QueryState>
  );
}
