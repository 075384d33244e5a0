import { useState } from 'react';
import { Badge, Button, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { QueryState } from '../../components/QueryState.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Section } from './Section.tsx';

/** Browsers that skip the second factor; this one marked; each can be revoked. */
export function DevicesCard() {
  const { t } = useTranslation('account');
  const queryClient = useQueryClient();
  const devices = useQuery({
    queryKey: ['account', 'devices'],
    queryFn: () => unwrap(api.GET('/api/auth/trusted-devices')),
  });
  const [revoking, setRevoking] = useState<number | null>(null);
  const revoke = useMutation({
    mutationFn: (id: number) => {
      setRevoking(id);
      return unwrap(api.DELETE('/api/auth/trusted-devices/{id}', { params: { path: { id } }, body: {} }));
    },
    onSuccess: () => {
      notifications.show({ color: 'teal', message: t('devices.revoked') });
      void queryClient.invalidateQueries({ queryKey: ['account'] });
    },
    onSettled: () => setRevoking(null),
  });
  return (
    <Section title={t('devices.title')} intro={t('devices.intro')} testId="devices">
      <ErrorAlert error={revoke.error} />
      <QueryState query={devices}>
        {(list) =>
          list.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('devices.empty')}
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={640}>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('devices.name')}</Table.Th>
                    <Table.Th>{t('devices.lastUsed')}</Table.Th>
                    <Table.Th>{t('devices.ip')}</Table.Th>
                    <Table.Th>{t('devices.expires')}</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.map((d) => (
                    <Table.Tr key={d.id} data-current={d.current ? 'true' : 'false'}>
                      <Table.Td>
                        <Text size="sm" span fw={500}>
                          {d.name}
                        </Text>{' '}
                        {d.current && (
                          <Badge size="xs" color="teal" variant="light">
                            {t('devices.current')}
                          </Badge>
                        )}
                        <Text size="xs" c="dimmed" lineClamp={1} title={d.userAgent}>
                          {d.userAgent}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <RelativeTime value={d.lastUsedAt} />
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{d.lastIp || '—'}</Text>
                      </Table.Td>
                      <Table.Td>
                        <RelativeTime value={d.expiresAt} />
                      </Table.Td>
                      <Table.Td>
                        <Button
                          size="xs"
                          variant="default"
                          color="red"
                          loading={revoking === d.id}
                          aria-label={t('devices.revokeLabel', { name: d.name })}
                          onClick={() => {
                            if (window.confirm(t('devices.confirm', { name: d.name }))) revoke.mutate(d.id);
                          }}
                        >
                          {t('devices.revoke')}
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
    </Section>
  );
}
