import { Fragment, useState } from 'react';
import { ActionIcon, Group, Pagination, Select, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { DELIVERY_STATUSES, deliveriesQuery, type DeliveryStatus } from './queries.ts';
import { DeliveryAttempts } from './DeliveryAttempts.tsx';

const PAGE_SIZE = 20;

/** A channel's delivery log, newest first: status, event, attempts (each one on demand), error, times. */
export function DeliveryLog({ channelId }: { channelId: number }) {
  const { t } = useTranslation('notifications');
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<DeliveryStatus | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const query = useQuery({
    ...deliveriesQuery(channelId, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE, ...(status ? { status } : {}) }),
    refetchInterval: 15_000,
  });
  return (
    <Stack gap="sm">
      <Select
        label={t('deliveries.status')}
        placeholder={t('deliveries.allStatuses')}
        data={DELIVERY_STATUSES}
        value={status}
        clearable
        maw={240}
        onChange={(v) => {
          setStatus(v as DeliveryStatus | null);
          setPage(1);
        }}
      />
      <QueryState query={query}>
        {({ items, total }) =>
          items.length === 0 ? (
            <Text c="dimmed" size="sm">
              {t('deliveries.empty')}
            </Text>
          ) : (
            <>
              <Table.ScrollContainer minWidth={760}>
                <Table>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>
                        <VisuallyHidden>{t('deliveries.attempts')}</VisuallyHidden>
                      </Table.Th>
                      <Table.Th>{t('deliveries.status')}</Table.Th>
                      <Table.Th>{t('deliveries.event')}</Table.Th>
                      <Table.Th>{t('deliveries.attempts')}</Table.Th>
                      <Table.Th>{t('deliveries.error')}</Table.Th>
                      <Table.Th>{t('deliveries.created')}</Table.Th>
                      <Table.Th>{t('deliveries.delivered')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {items.map((d) => (
                      <Fragment key={d.id}>
                        <Table.Tr>
                          <Table.Td>
                            {d.attemptLog.length > 0 && (
                              <ActionIcon
                                variant="subtle"
                                aria-label={t('deliveries.showAttempts', { id: d.id })}
                                aria-expanded={open === d.id}
                                onClick={() => setOpen(open === d.id ? null : d.id)}
                              >
                                {open === d.id ? <IconChevronDown size={16} /> : <IconChevronRight size={16} />}
                              </ActionIcon>
                            )}
                          </Table.Td>
                          <Table.Td>
                            <StatusBadge status={d.status} />
                          </Table.Td>
                          <Table.Td>
                            <Text size="sm">{d.title || d.eventType}</Text>
                            <Group gap={6}>
                              <Text size="xs" c="dimmed">
                                {d.eventType}
                              </Text>
                              {d.coalescedCount > 0 && (
                                <Text size="xs" c="dimmed">
                                  {t('deliveries.coalesced', { count: d.coalescedCount })}
                                </Text>
                              )}
                              {d.mergedInto !== null && (
                                <Text size="xs" c="dimmed">
                                  {t('deliveries.mergedInto', { id: d.mergedInto })}
                                </Text>
                              )}
                            </Group>
                          </Table.Td>
                          <Table.Td>{d.attempts}</Table.Td>
                          <Table.Td>
                            {d.lastError && (
                              <Text size="sm" c="red" lineClamp={2}>
                                {d.lastError}
                              </Text>
                            )}
                            {d.nextAttemptAt && (
                              <Text size="xs" c="dimmed">
                                {t('deliveries.nextAttempt', { when: '' })}
                                <RelativeTime value={d.nextAttemptAt} size="xs" />
                              </Text>
                            )}
                          </Table.Td>
                          <Table.Td>
                            <RelativeTime value={d.createdAt} />
                          </Table.Td>
                          <Table.Td>{d.deliveredAt ? <RelativeTime value={d.deliveredAt} /> : '—'}</Table.Td>
                        </Table.Tr>
                        {open === d.id && (
                          <Table.Tr>
                            <Table.Td colSpan={7}>
                              <DeliveryAttempts attempts={d.attemptLog} />
                            </Table.Td>
                          </Table.Tr>
                        )}
                      </Fragment>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              {total > PAGE_SIZE && (
                <Pagination
                  total={Math.ceil(total / PAGE_SIZE)}
                  value={page}
                  onChange={setPage}
                  size="sm"
                  aria-label={t('deliveries.page')}
                />
              )}
            </>
          )
        }
      </QueryState>
    </Stack>
  );
}
