import { Anchor, Badge, Group, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { Panel } from './Panel.tsx';
import { useCluster } from './dashboard-queries.ts';

/** Nodes online and offline, agent versions against the master's, tasks per node. */
export function ClusterPanel() {
  const { t } = useTranslation('dashboard');
  const query = useCluster();
  return (
    <Panel title={t('cluster.title')}>
      <QueryState query={query}>
        {(c) => (
          <>
            <Group gap="xs">
              <Badge variant="light" color="gray">
                {t('cluster.master', { version: c.masterVersion })}
              </Badge>
              <Badge variant="light" color="green">
                {t('cluster.online', { count: c.onlineNodes })}
              </Badge>
              <Badge variant="light" color={c.offlineNodes ? 'red' : 'gray'}>
                {t('cluster.offline', { count: c.offlineNodes })}
              </Badge>
              {c.outdatedAgents > 0 && (
                <Badge variant="light" color="orange">
                  {t('cluster.outdated', { count: c.outdatedAgents })}
                </Badge>
              )}
            </Group>
            {c.nodes.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('cluster.empty')}
              </Text>
            ) : (
              <Table.ScrollContainer minWidth={520}>
                <Table>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('cluster.node')}</Table.Th>
                      <Table.Th>{t('cluster.status')}</Table.Th>
                      <Table.Th>{t('cluster.version')}</Table.Th>
                      <Table.Th>{t('cluster.lastSeen')}</Table.Th>
                      <Table.Th>{t('cluster.tasks')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {c.nodes.map((n) => (
                      <Table.Tr key={n.id}>
                        <Table.Td>
                          <Anchor component={Link} to={`/nodes/${n.id}`} size="sm">
                            {n.name}
                          </Anchor>{' '}
                          {n.isLocal && (
                            <Badge size="xs" variant="outline">
                              {t('cluster.local')}
                            </Badge>
                          )}
                          <Text size="xs" c="dimmed">
                            {n.hostname}
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <StatusBadge status={n.status} />
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm" span>
                            {n.agentVersion || '—'}
                          </Text>{' '}
                          {n.versionStatus === 'outdated' && (
                            <Badge size="xs" color="orange" variant="light">
                              {t('cluster.outdatedBadge')}
                            </Badge>
                          )}
                        </Table.Td>
                        <Table.Td>
                          <RelativeTime value={n.lastSeen || null} />
                        </Table.Td>
                        <Table.Td>{n.taskCount}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
          </>
        )}
      </QueryState>
    </Panel>
  );
}
