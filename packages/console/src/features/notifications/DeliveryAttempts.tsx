import { List, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import type { ResponseData } from '../../api/types.ts';

type Attempt = ResponseData<'/api/notifications/{id}/deliveries', 'get'>[number]['attemptLog'][number];

/** Each attempt of one delivery: outcome, error kind and message, duration, when. */
export function DeliveryAttempts({ attempts }: { attempts: Attempt[] }) {
  const { t } = useTranslation('notifications');
  return (
    <List size="sm" spacing={4}>
      {attempts.map((a) => (
        <List.Item key={a.attempt}>
          <Text span size="sm">
            {t('deliveries.attempt', { n: a.attempt, outcome: a.outcome })}
          </Text>
          {a.errorKind && (
            <Text span size="sm" c="red">
              {' '}
              ({a.errorKind})
            </Text>
          )}
          {a.error && (
            <Text span size="sm">
              {' '}
              {a.error}
            </Text>
          )}
          <Text span size="xs" c="dimmed">
            {' '}
            · {t('deliveries.duration', { ms: a.durationMs })} ·{' '}
          </Text>
          <RelativeTime value={a.at} size="xs" />
        </List.Item>
      ))}
    </List>
  );
}
