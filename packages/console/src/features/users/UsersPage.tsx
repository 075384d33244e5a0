import { useState } from 'react';
import { Badge, Button, Group, Stack, Table, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { useSession } from '../../app/use-session.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { UserFormModal, type User } from './UserFormModal.tsx';
import { UserActions } from './UserActions.tsx';

const ROLE_COLOUR = { admin: 'grape', operator: 'blue', viewer: 'gray' } as const;

function Factors({ user }: { user: User }) {
  const { t } = useTranslation('users');
  if (!user.mfaEnabled)
    return (
      <Text size="sm" c="dimmed">
        {t('list.none')}
      </Text>
    );
  return (
    <Group gap={4}>
      {user.twoFactorEnabled && (
        <Badge size="sm" variant="light" color="teal">
          {t('list.factors.totp')}
        </Badge>
      )}
      {user.webAuthnEnabled && (
        <Badge size="sm" variant="light" color="teal">
          {t('list.factors.passkeys', { count: user.webAuthnCredentialCount })}
        </Badge>
      )}
      {user.emailOtpEnabled && (
        <Badge size="sm" variant="light" color="teal">
          {t('list.factors.email')}
        </Badge>
      )}
      {user.smsOtpEnabled && (
        <Badge size="sm" variant="light" color="teal">
          {t('list.factors.sms')}
        </Badge>
      )}
      {user.twoFactorEnabled && (
        <Text size="xs" c="dimmed">
          {t('list.factors.recovery', { count: user.twoFactorRecoveryCodesRemaining })}
        </Text>
      )}
    </Group>
  );
}

/** `/users` (admin): every account with role, state and second factors; create, edit, disable, reset factors, delete. */
export function UsersPage() {
  const { t } = useTranslation('users');
  const session = useSession();
  const users = useQuery({
    queryKey: ['users'],
    queryFn: () => unwrap(api.GET('/api/users', { params: { query: { offset: 0 } } })),
  });
  const [editing, setEditing] = useState<User | null | undefined>(undefined);
  return (
    <>
      <PageHeader
        title={t('list.title')}
        description={t('list.description')}
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing(null)}>
            {t('list.create')}
          </Button>
        }
      />
      <QueryState query={users}>
        {(list) => (
          <Stack>
            <Table.ScrollContainer minWidth={820}>
              <Table striped data-testid="users-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('list.user')}</Table.Th>
                    <Table.Th>{t('list.contact')}</Table.Th>
                    <Table.Th>{t('list.role')}</Table.Th>
                    <Table.Th>{t('list.status')}</Table.Th>
                    <Table.Th>{t('list.secondFactor')}</Table.Th>
                    <Table.Th>{t('list.created')}</Table.Th>
                    <Table.Th>{t('list.actions')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.map((u) => {
                    const self = u.id === session?.user.id;
                    return (
                      <Table.Tr key={u.id} data-user={u.username}>
                        <Table.Td>
                          <Text size="sm" fw={500}>
                            {u.displayName || u.username}
                            {self && (
                              <Text span size="xs" c="dimmed">
                                {' '}
                                ({t('list.you')})
                              </Text>
                            )}
                          </Text>
                          <Text size="xs" c="dimmed">
                            {u.username}
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{u.email || '—'}</Text>
                          {u.phone && (
                            <Text size="xs" c="dimmed">
                              {u.phone}
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td>
                          <Badge variant="light" color={ROLE_COLOUR[u.role]}>
                            {t(`roles.${u.role}`)}
                          </Badge>
                        </Table.Td>
                        <Table.Td>
                          <Group gap={4}>
                            <Badge variant="light" color={u.disabled ? 'gray' : 'green'}>
                              {u.disabled ? t('list.disabled') : t('list.active')}
                            </Badge>
                            {u.lockedUntil && (
                              <Badge
                                variant="light"
                                color="red"
                                title={t('list.lockedHint', { count: u.failedLoginCount })}
                              >
                                {t('list.locked')}
                              </Badge>
                            )}
                          </Group>
                        </Table.Td>
                        <Table.Td>
                          <Factors user={u} />
                        </Table.Td>
                        <Table.Td>
                          <RelativeTime value={u.createdAt} />
                        </Table.Td>
                        <Table.Td>
                          <UserActions user={u} self={self} onEdit={() => setEditing(u)} />
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {list.every((u) => u.id === session?.user.id) && (
              <EmptyState
                title={t('list.empty')}
                hint={t('list.emptyHint')}
                action={<Button onClick={() => setEditing(null)}>{t('list.create')}</Button>}
              />
            )}
          </Stack>
        )}
      </QueryState>
      {editing !== undefined && (
        <UserFormModal key={editing?.id ?? 'new'} user={editing} opened onClose={() => setEditing(undefined)} />
      )}
    </>
  );
}
