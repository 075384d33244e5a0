import { Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { deliveriesQuery } from './queries.ts';

/**
 * A channel's newest delivery in the list. The list route carries no delivery status, so each row
 * asks its delivery log for one entry (see the report: a `lastDelivery` on the list would save this).
 */
export function LastDelivery({ channelId }: { channelId: number }) {
  const { t } = useTranslation('notifications');
  const query = useQuery(deliveriesQuery(channelId, { limit: 1, offset: 0 }));
  const last = query.data?.items[0];
  if (query.isPending)
    return (
      <Text size="sm" c="dimmed">
        …
      </Text>
    );
  if (!last)
    return (
      <Text size="sm" c="dimmed">
        {t('noDeliveries')}
      </Text>
    );
  return (
    <Group gap={6} wrap="nowrap">
      <StatusBadge status={last.status} />
      <RelativeTime value={last.deliveredAt ?? last.createdAt} />
    </Group>
  );
}
