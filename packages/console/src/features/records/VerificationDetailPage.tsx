import { Alert, Badge, Paper, Title } from '@mantine/core';
import { useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { LiveLog } from '../../components/LiveLog.tsx';
import { formatDuration } from '../../lib/time.ts';
import { Facts } from './Facts.tsx';
import { CancelRunButton } from './CancelRunButton.tsx';
import { runHead, runTimes } from './run-facts.tsx';
import { isActive } from './run-state.ts';
import { useNodeName } from './use-node-name.ts';

/** /verifications/:id: the check's mode, its summary (and measured restore time for deep ones), its live log. */
export function VerificationDetailPage() {
  const { t } = useTranslation('records');
  const id = Number(useParams().id);
  const queryClient = useQueryClient();
  const nodeName = useNodeName();
  const verification = useQuery({
    queryKey: ['verify-records', id],
    queryFn: () => unwrap(api.GET('/api/verify/records/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.state) ? 5000 : false),
  });
  return (
    <QueryState query={verification}>
      {(v) => (
        <>
          <PageHeader
            title={t('verifications.detailTitle', { id: v.id })}
            description={v.taskName}
            actions={
              <CancelRunButton
                state={v.state}
                label={t('verifications.cancel')}
                queryKey="verify-records"
                cancel={() => unwrap(api.POST('/api/verify/records/{id}/cancel', { params: { path: { id: v.id } } }))}
              />
            }
          />
          <Paper withBorder p="md">
            <Facts
              items={[
                ...runHead(v, t),
                [
                  t('col.mode'),
                  <Badge variant="outline" color={v.mode === 'deep' ? 'violet' : 'gray'}>
                    {v.mode}
                  </Badge>,
                ],
                [t('col.source'), v.sourceTargetName || '—'],
                [t('col.node'), nodeName(v.nodeId)],
                v.restoreSeconds !== null && [t('verifications.restoreSeconds'), formatDuration(v.restoreSeconds)],
                ...runTimes(v, t),
              ]}
            />
          </Paper>
          {v.summary && (
            <Alert color={v.state === 'success' ? 'green' : 'gray'} title={t('verifications.summary')} mt="md">
              {v.summary}
            </Alert>
          )}
          {v.errorMessage && (
            <Alert color={v.state === 'cancelled' ? 'gray' : 'red'} title={t('run.error')} mt="md" role="alert">
              {v.errorMessage}
            </Alert>
          )}
          <Title order={2} size="h4" mt="lg" mb="xs">
            {isActive(v.state) ? t('detail.liveLog') : t('detail.log')}
          </Title>
          <LiveLog
            path={`/api/verify/records/${v.id}/logs/stream`}
            onDone={() => void queryClient.invalidateQueries({ queryKey: ['verify-records'] })}
          />
        </>
      )}
    </QueryState>
  );
}
