import { Alert, Code, List, Paper, Title } from '@mantine/core';
import { useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { LiveLog } from '../../components/LiveLog.tsx';
import { formatBytes } from '../../lib/time.ts';
import { Facts } from './Facts.tsx';
import { CancelRunButton } from './CancelRunButton.tsx';
import { runHead, runTimes } from './run-facts.tsx';
import { isActive } from './run-state.ts';
import { useNodeName } from './use-node-name.ts';

/** /restores/:id: where a restore writes, what it restores, its live log until it ends, and the result. */
export function RestoreDetailPage() {
  const { t } = useTranslation('records');
  const id = Number(useParams().id);
  const queryClient = useQueryClient();
  const nodeName = useNodeName();
  const restore = useQuery({
    queryKey: ['restore-records', id],
    queryFn: () => unwrap(api.GET('/api/restore/records/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.state) ? 5000 : false),
  });
  return (
    <QueryState query={restore}>
      {(r) => {
        const selection = r.type === 'file' ? r.selectedPaths : r.databases;
        return (
          <>
            <PageHeader
              title={t('restores.detailTitle', { id: r.id })}
              description={r.taskName}
              actions={
                <CancelRunButton
                  state={r.state}
                  label={t('restores.cancel')}
                  queryKey="restore-records"
                  cancel={() =>
                    unwrap(api.POST('/api/restore/records/{id}/cancel', { params: { path: { id: r.id } } }))
                  }
                />
              }
            />
            <Paper withBorder p="md">
              <Facts
                items={[
                  ...runHead(r, t),
                  [
                    t('restores.target'),
                    <Code>
                      {r.type === 'file'
                        ? r.targetPath || t('restores.original')
                        : r.targetDatabase || t('restores.taskDatabase')}
                    </Code>,
                  ],
                  [t('col.source'), r.sourceTargetName || '—'],
                  [t('col.node'), nodeName(r.nodeId)],
                  [t('restores.bytes'), formatBytes(r.bytes)],
                  r.type === 'file' && [t('restores.entries'), String(r.entries)],
                  ...runTimes(r, t),
                ]}
              />
              <Title order={3} size="h6" mt="md">
                {r.type === 'file' ? t('restores.selection') : t('restores.databases')}
              </Title>
              {selection.length === 0 ? (
                t('restores.everything')
              ) : (
                <List size="sm">
                  {selection.slice(0, 50).map((p) => (
                    <List.Item key={p}>
                      <Code>{r.type === 'file' ? `/${p}` : p}</Code>
                    </List.Item>
                  ))}
                </List>
              )}
            </Paper>
            {r.errorMessage && (
              <Alert color={r.state === 'cancelled' ? 'gray' : 'red'} title={t('run.error')} mt="md" role="alert">
                {r.errorMessage}
              </Alert>
            )}
            <Title order={2} size="h4" mt="lg" mb="xs">
              {isActive(r.state) ? t('detail.liveLog') : t('detail.log')}
            </Title>
            <LiveLog
              path={`/api/restore/records/${r.id}/logs/stream`}
              onDone={() => void queryClient.invalidateQueries({ queryKey: ['restore-records'] })}
            />
          </>
        );
      }}
    </QueryState>
  );
}
