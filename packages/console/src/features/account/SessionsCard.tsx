import { useState } from 'react';
import { Badge, Button, Group, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { QueryState } from '../../components/QueryState.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Section } from './Section.tsx';

const SESSIONS_KEY = ['account', 'sessions'] as const;

/** Where the account is signed in; this session marked; each other one can be signed out, or all at once. */
export function SessionsCard() {
  const { t } = useTranslation('account');
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: SESSIONS_KEY, queryFn: () => unwrap(api.GET('/api/auth/sessions')) });
  const [revoking, setRevoking] = useState<number | null>(null);
  const revoke = useMutation({
    mutationFn: (id: number) => {
      setRevoking(id);
      return unwrap(api.DELETE('/api/auth/sessions/{id}', { params: { path: { id } } }));
    },
    onSuccess: () => {
      notifications.show({ color: 'teal', message: t('sessions.revoked') });
      void queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
    },
    onSettled: () => setRevoking(null),
  });
  const others = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/sessions/revoke-others')),
    onSuccess: (done) => {
      notifications.show({ color: 'teal', message: t('sessions.othersDone', { count: done.revoked }) });
      void queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
    },
  });
  return (
    <Section title={t('sessions.title')} intro={t('sessions.intro')} testId="sessions">
      <ErrorAlert error={revoke.error ?? others.error} />
      <QueryState query={sessions}>
        {(list) => (
          <>
            <Table.ScrollContainer minWidth={640}>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('sessions.client')}</Table.Th>
                    <Table.Th>{t('sessions.address')}</Table.Th>
                    <Table.Th>{t('sessions.signedIn')}</Table.Th>
                    <Table.Th>{t('sessions.lastUsed')}</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.map((s) => (
                    <Table.Tr key={s.id} data-current={s.current ? 'true' : 'false'}>
                      <Table.Td>
                        <Text size="sm" span fw={500}>
                          {s.client}
                        </Text>{' '}
                        {s.current && (
                          <Badge size="xs" color="teal" variant="light">
                            {t('sessions.current')}
                          </Badge>
                        )}
                        <Text size="xs" c="dimmed" lineClamp={1} title={s.userAgent}>
                          {s.userAgent}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{s.address || '—'}</Text>
                      </Table.Td>
                      <Table.Td>
                        <RelativeTime value={s.createdAt} />
                      </Table.Td>
                      <Table.Td>
                        <RelativeTime value={s.lastUsedAt} />
                      </Table.Td>
                      <Table.Td>
                        {!s.current && (
                          <Button
                            size="xs"
                            variant="default"
                            color="red"
                            loading={revoking === s.id}
                            aria-label={t('sessions.revokeLabel', { client: s.client, address: s.address })}
                            onClick={() => {
                              if (window.confirm(t('sessions.confirm', { client: s.client, address: s.address })))
                                revoke.mutate(s.id);
                            }}
                          >
                            {t('sessions.revoke')}
                          </Button>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Group>
              {list.some((s) => !s.current) ? (
                <Button
                  variant="default"
                  color="red"
                  loading={others.isPending}
                  onClick={() => {
                    if (window.confirm(t('sessions.othersConfirm'))) others.mutate();
                  }}
                >
                  {t('sessions.others')}
                </Button>
              ) : (
                <Text size="sm" c="dimmed">
                  {t('sessions.noOthers')}
                </Text>
              )}
            </Group>
          </>
        )}
      </QueryState>
    </Section>
  );
}
