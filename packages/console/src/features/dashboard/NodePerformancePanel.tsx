import { Anchor, Badge, Progress, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState.tsx';
import { formatBytes, formatDuration } from '../../lib/time.ts';
import { Panel } from './Panel.tsx';
import { useNodePerformance } from './dashboard-queries.ts';

/** Runs per node in the window: successes, failures, bytes, mean duration, success rate as a bar. */
export function NodePerformancePanel({ days }: { days: number }) {
  const { t } = useTranslation('dashboard');
  const query = useNodePerformance(days);
  return (
    <Panel title={t('nodes.title')}>
      <QueryState query={query}>
        {(nodes) =>
          nodes.every((n) => n.totalRuns === 0) ? (
            <Text size="sm" c="dimmed">
              {t('nodes.empty')}
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={640}>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('nodes.node')}</Table.Th>
                    <Table.Th>{t('nodes.runs')}</Table.Th>
                    <Table.Th>{t('nodes.success')}</Table.Th>
                    <Table.Th>{t('nodes.failed')}</Table.Th>
                    <Table.Th>{t('nodes.rate')}</Table.Th>
                    <Table.Th>{t('nodes.bytes')}</Table.Th>
                    <Table.Th>{t('nodes.avg')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {nodes.map((n) => (
                    <Table.Tr key={n.nodeId}>
                      <Table.Td>
                        <Anchor component={Link} to={`/nodes/${n.nodeId}`} size="sm">
                          {n.nodeName}
                        </Anchor>{' '}
                        {n.isLocal && (
                          <Badge size="xs" variant="outline">
                            {t('cluster.local')}
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>{n.totalRuns}</Table.Td>
                      <Table.Td>{n.successRuns}</Table.Td>
                      <Table.Td>{n.failedRuns}</Table.Td>
                      <Table.Td miw={120}>
                        <Text size="xs">{(n.successRate * 100).toFixed(1)} %</Text>
                        <Progress
                          value={n.successRate * 100}
                          color={n.successRate >= 0.95 ? 'teal' : n.successRate >= 0.8 ? 'orange' : 'red'}
                          size="sm"
                          aria-label={`${t('nodes.rate')} ${n.nodeName}`}
                        />
                      </Table.Td>
                      <Table.Td>{formatBytes(n.totalBytes)}</Table.Td>
                      <Table.Td>{n.successRuns ? formatDuration(n.avgDurationSecs) : '—'}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
    </Panel>
  );
}
