import { useState } from 'react';
import { ActionIcon, Badge, Button, Code, Switch, Table, Text, Tooltip } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import type { ResponseData } from '../../api/types.ts';
import { apiKeyState } from './user-form.ts';
import { ConfirmModal } from './ConfirmModal.tsx';
import { CreateKeyModal } from './CreateKeyModal.tsx';
import { KeyShownModal } from './KeyShownModal.tsx';

type Key = ResponseData<'/api/api-keys', 'get'>[number];
const STATE_COLOUR = { active: 'green', disabled: 'gray', expired: 'orange' } as const;

/** `/api-keys` (admin): keys with role, state, last use and expiry; create (shown once), enable/disable, delete. */
export function ApiKeysPage() {
  const { t } = useTranslation('users');
  const queryClient = useQueryClient();
  const keys = useQuery({
    queryKey: ['api-keys'],
    queryFn: () => unwrap(api.GET('/api/api-keys', { params: { query: { offset: 0 } } })),
  });
  const [creating, setCreating] = useState(false);
  const [plainKey, setPlainKey] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Key | null>(null);
  const toggle = useMutation({
    mutationFn: (k: Key) =>
      unwrap(api.PUT('/api/api-keys/{id}/toggle', { params: { path: { id: k.id } }, body: { disabled: !k.disabled } })),
    onSuccess: (k) => {
      notifications.show({
        color: 'teal',
        message: t(k.disabled ? 'keys.done.disabled' : 'keys.done.enabled', { name: k.name }),
      });
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const remove = useMutation({
    mutationFn: (k: Key) => unwrap(api.DELETE('/api/api-keys/{id}', { params: { path: { id: k.id } } })).then(() => k),
    onSuccess: (k) => {
      notifications.show({ color: 'teal', message: t('keys.done.deleted', { name: k.name }) });
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
      setDeleting(null);
    },
  });
  const createButton = (
    <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
      {t('keys.create')}
    </Button>
  );
  const now = Date.now();
  return (
    <>
      <PageHeader title={t('keys.title')} description={t('keys.description')} actions={createButton} />
      <ErrorAlert error={toggle.error} />
      <QueryState query={keys}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState title={t('keys.empty')} hint={t('keys.emptyHint')} action={createButton} />
          ) : (
            <Table.ScrollContainer minWidth={860}>
              <Table striped data-testid="api-keys-table">
                <Table.Thead>
                  <Table.Tr>
                    {(['name', 'role', 'state', 'prefix', 'createdBy', 'lastUsed', 'expires'] as const).map((c) => (
                      <Table.Th key={c}>{t(`keys.${c}`)}</Table.Th>
                    ))}
                    <Table.Th>{t('list.actions')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.map((k) => {
                    const state = apiKeyState(k, now);
                    return (
                      <Table.Tr key={k.id} data-key={k.name}>
                        <Table.Td>
                          <Text size="sm" fw={500}>
                            {k.name}
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <Badge variant="light">{k.role}</Badge>
                        </Table.Td>
                        <Table.Td>
                          <Badge variant="light" color={STATE_COLOUR[state]}>
                            {t(`keys.states.${state}`)}
                          </Badge>
                        </Table.Td>
                        <Table.Td>
                          <Code>{k.prefix}…</Code>
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{k.createdBy}</Text>
                        </Table.Td>
                        <Table.Td>
                          <RelativeTime value={k.lastUsedAt} />
                        </Table.Td>
                        <Table.Td>
                          {k.expiresAt ? (
                            <RelativeTime value={k.expiresAt} />
                          ) : (
                            <Text size="sm" c="dimmed">
                              {t('keys.never')}
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td>
                          <Switch
                            checked={!k.disabled}
                            disabled={toggle.isPending}
                            onChange={() => toggle.mutate(k)}
                            aria-label={t('keys.toggleLabel', { name: k.name })}
                            display="inline-block"
                            mr="xs"
                          />
                          <Tooltip label={t('keys.delete')}>
                            <ActionIcon
                              variant="subtle"
                              color="red"
                              onClick={() => {
                                remove.reset();
                                setDeleting(k);
                              }}
                              aria-label={`${t('keys.delete')} ${k.name}`}
                            >
                              <IconTrash size={16} />
                            </ActionIcon>
                          </Tooltip>
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
      {creating && (
        <CreateKeyModal
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setPlainKey(key);
          }}
        />
      )}
      {plainKey && <KeyShownModal plainKey={plainKey} onClose={() => setPlainKey(null)} />}
      {deleting && (
        <ConfirmModal
          opened
          title={t('keys.delete')}
          message={t('keys.confirmDelete', { name: deleting.name })}
          confirmLabel={t('keys.delete')}
          danger
          loading={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate(deleting)}
          onClose={() => setDeleting(null)}
        />
      )}
    </>
  );
}
