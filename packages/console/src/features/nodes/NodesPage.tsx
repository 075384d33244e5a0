import { Anchor, Badge, Button, Group, Table, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { useCan } from '../../app/use-session.ts';
import { nodeListQuery } from '../../api/shared-lists.ts';
import { parseLabels } from './node-form.ts';
import { AddNodeModal } from './AddNodeModal.tsx';

/** /nodes: every node with status, last seen, version, running work and labels; admins add nodes. */
export function NodesPage({ adding: addingAtFirst = false }: { adding?: boolean }) {
  const { t } = useTranslation('nodes');
  const can = useCan();
  const navigate = useNavigate();
  const [adding, { open, close: hide }] = useDisclosure(addingAtFirst);
  // /nodes/new opens the dialog; closing it goes back to the list's own address.
  const close = () => {
    hide();
    if (addingAtFirst) void navigate('/nodes', { replace: true });
  };
  // Status is derived from the last heartbeat: refresh while the page is open.
  const query = useQuery({ ...nodeListQuery, refetchInterval: 15_000 });
  const addButton = can('admin') && (
    <Button leftSection={<IconPlus size={16} />} onClick={open}>
      {t('list.add')}
    </Button>
  );
  return (
    <>
      <PageHeader title={t('list.title')} description={t('list.description')} actions={addButton} />
      <QueryState query={query}>
        {(nodes) =>
          nodes.length === 0 ? (
            <EmptyState title={t('list.emptyTitle')} hint={t('list.emptyHint')} action={addButton} />
          ) : (
            <Table.ScrollContainer minWidth={820}>
              <Table highlightOnHover verticalSpacing="xs">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('list.name')}</Table.Th>
                    <Table.Th>{t('list.status')}</Table.Th>
                    <Table.Th>{t('list.lastSeen')}</Table.Th>
                    <Table.Th>{t('list.version')}</Table.Th>
                    <Table.Th>{t('list.running')}</Table.Th>
                    <Table.Th>{t('list.queue')}</Table.Th>
                    <Table.Th>{t('list.labels')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {nodes.map((node) => (
                    <Table.Tr key={node.id} data-testid={`node-row-${node.id}`}>
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Anchor component={Link} to={`/nodes/${node.id}`} fw={500}>
                            {node.name}
                          </Anchor>
                          {node.isLocal && (
                            <Badge size="sm" variant="outline">
                              {t('list.local')}
                            </Badge>
                          )}
                        </Group>
                        {(node.hostname || node.ipAddress) && (
                          <Text size="xs" c="dimmed">
                            {[node.hostname, node.ipAddress].filter(Boolean).join(' · ')}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <StatusBadge status={node.status} />
                          {node.health === 'degraded' && <StatusBadge status="degraded" />}
                        </Group>
                      </Table.Td>
                      <Table.Td>
                        <RelativeTime value={node.lastSeen} />
                      </Table.Td>
                      <Table.Td>{node.agentVersion || '—'}</Table.Td>
                      <Table.Td>{node.runningTasks}</Table.Td>
                      <Table.Td>{node.queue.depth}</Table.Td>
                      <Table.Td>
                        <Group gap={4}>
                          {parseLabels(node.labels).map((l) => (
                            <Badge key={l} variant="light" size="sm" tt="none">
                              {l}
                            </Badge>
                          ))}
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
      {can('admin') && <AddNodeModal opened={adding} onClose={close} />}
    </>
  );
}
