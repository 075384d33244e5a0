import { useState } from 'react';
import { ActionIcon, Group, Menu, Tooltip } from '@mantine/core';
import { IconDots, IconPencil } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ConfirmModal } from './ConfirmModal.tsx';
import type { User } from './UserFormModal.tsx';

type Pending = 'disable' | 'reset2fa' | 'delete' | null;

/** The message key of each action once done. */
const DONE = {
  disable: 'disabled',
  enable: 'enabled',
  delete: 'deleted',
  unlock: 'unlocked',
  reset2fa: 'reset2fa',
} as const;

/** Edit, enable/disable, unlock sign-in, reset second factors, delete: each destructive one confirmed first. */
export function UserActions({ user, self, onEdit }: { user: User; self: boolean; onEdit: () => void }) {
  const { t } = useTranslation('users');
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<Pending>(null);
  const done = (message: string) => {
    notifications.show({ color: 'teal', message });
    void queryClient.invalidateQueries({ queryKey: ['users'] });
    setPending(null);
  };
  const action = useMutation({
    mutationFn: async (what: 'disable' | 'enable' | 'reset2fa' | 'delete' | 'unlock') => {
      const path = { params: { path: { id: user.id } } };
      if (what === 'delete') await unwrap(api.DELETE('/api/users/{id}', path));
      else if (what === 'unlock') await unwrap(api.POST('/api/users/{id}/unlock', path));
      else if (what === 'reset2fa') await unwrap(api.POST('/api/users/{id}/2fa/reset', path));
      else await unwrap(api.PUT('/api/users/{id}', { ...path, body: { disabled: what === 'disable' } }));
      return what;
    },
    onSuccess: (what) => done(t(`done.${DONE[what]}`, { name: user.username })),
  });
  const confirm = (what: Exclude<Pending, null>) => {
    action.reset();
    setPending(what);
  };
  const label = { disable: t('actions.disable'), reset2fa: t('actions.reset2fa'), delete: t('actions.delete') };
  return (
    <Group gap={4} wrap="nowrap">
      <Tooltip label={t('actions.edit', { name: user.username })}>
        <ActionIcon variant="subtle" onClick={onEdit} aria-label={t('actions.edit', { name: user.username })}>
          <IconPencil size={16} />
        </ActionIcon>
      </Tooltip>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon variant="subtle" aria-label={t('actions.more', { name: user.username })}>
            <IconDots size={16} />
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          {user.disabled ? (
            <Menu.Item onClick={() => action.mutate('enable')}>{t('actions.enable')}</Menu.Item>
          ) : (
            <Menu.Item disabled={self} onClick={() => confirm('disable')}>
              {t('actions.disable')}
            </Menu.Item>
          )}
          {user.lockedUntil && <Menu.Item onClick={() => action.mutate('unlock')}>{t('actions.unlock')}</Menu.Item>}
          {/* One's own factors are removed on the account page, with the password and a code. */}
          <Menu.Item disabled={self || !user.mfaEnabled} onClick={() => confirm('reset2fa')}>
            {t('actions.reset2fa')}
          </Menu.Item>
          <Menu.Divider />
          <Menu.Item color="red" disabled={self} onClick={() => confirm('delete')}>
            {t('actions.delete')}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {pending && (
        <ConfirmModal
          opened
          title={label[pending]}
          message={t(`confirm.${pending}`, { name: user.username })}
          confirmLabel={label[pending]}
          danger
          loading={action.isPending}
          error={action.error}
          onConfirm={() => action.mutate(pending)}
          onClose={() => setPending(null)}
        />
      )}
    </Group>
  );
}
