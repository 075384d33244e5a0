import { Anchor, Badge, Button, Group, Table, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { useCan } from '../../app/use-session.ts';
import { effectiveEvents } from './channel-settings.ts';
import { channelTypesQuery, channelsQuery } from './queries.ts';
import { LastDelivery } from './LastDelivery.tsx';

/** /notifications: every channel with its type, state, subscriptions and newest delivery. */
export function NotificationsListPage() {
  const { t } = useTranslation('notifications');
  const can = useCan();
  const channels = useQuery(channelsQuery);
  const types = useQuery(channelTypesQuery);
  const typeName = (type: string) => types.data?.find((x) => x.type === type)?.displayName ?? type;
  const add = can('write') ? (
    <Button component={Link} to="/notifications/new" leftSection={<IconPlus size={16} />}>
      {t('add')}
    </Button>
  ) : null;
  return (
    <>
      <PageHeader title={t('title')} description={t('description')} actions={add} />
      <QueryState query={channels}>
        {({ items }) =>
          items.length === 0 ? (
            <EmptyState
              title={t('empty.title')}
              hint={can('write') ? t('empty.hint') : t('empty.viewerHint')}
              action={add}
            />
          ) : (
            <Table.ScrollContainer minWidth={720}>
              <Table striped highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('columns.name')}</Table.Th>
                    <Table.Th>{t('columns.type')}</Table.Th>
                    <Table.Th>{t('columns.enabled')}</Table.Th>
                    <Table.Th>{t('columns.events')}</Table.Th>
                    <Table.Th>{t('columns.lastDelivery')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.map((c) => (
                    <Table.Tr key={c.id}>
                      <Table.Td>
                        <Anchor component={Link} to={`/notifications/${c.id}`}>
                          {c.name}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>{typeName(c.type)}</Table.Td>
                      <Table.Td>
                        <StatusBadge status={c.enabled ? 'enabled' : 'disabled'} />
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4}>
                          {effectiveEvents(c).map((e) => (
                            <Badge key={e} variant="outline" size="sm" tt="none">
                              {e}
                            </Badge>
                          ))}
                          {c.digest === 'daily' && (
                            <Text size="xs" c="dimmed">
                              {t('digestDaily', { time: c.digestTime })}
                            </Text>
                          )}
                        </Group>
                      </Table.Td>
                      <Table.Td>
                        <LastDelivery channelId={c.id} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
    </>
  );
}
