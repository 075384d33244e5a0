import { Button, Group, Modal, PasswordInput, Select, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import type { ResponseData } from '../../api/types.ts';
import { createUserBody, updateUserBody, validateUser, type Role, type UserFormValues } from './user-form.ts';

export type User = ResponseData<'/api/users', 'get'>[number];

/** Creates a user (no `user`) or edits one: only changed fields are sent. */
export function UserFormModal({ user, opened, onClose }: { user: User | null; opened: boolean; onClose: () => void }) {
  const { t } = useTranslation('users');
  const queryClient = useQueryClient();
  const creating = user === null;
  const before = {
    username: user?.username ?? '',
    displayName: user?.displayName ?? '',
    email: user?.email ?? '',
    phone: user?.phone ?? '',
    role: (user?.role ?? 'viewer') as Role,
  };
  const form = useForm<UserFormValues>({
    initialValues: { ...before, password: '' },
    validate: (v) =>
      Object.fromEntries(Object.entries(validateUser(v, creating)).map(([k, e]) => [k, t(`form.errors.${e}`)])),
  });
  const save = useMutation({
    mutationFn: (v: UserFormValues) =>
      creating
        ? unwrap(api.POST('/api/users', { body: createUserBody(v) }))
        : unwrap(api.PUT('/api/users/{id}', { params: { path: { id: user.id } }, body: updateUserBody(before, v) })),
    onSuccess: (saved) => {
      notifications.show({
        color: 'teal',
        message: t(creating ? 'done.created' : 'done.saved', { name: saved.username }),
      });
      void queryClient.invalidateQueries({ queryKey: ['users'] });
      form.reset();
      onClose();
    },
  });
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      size="lg"
      title={creating ? t('form.createTitle') : t('form.editTitle', { name: user.username })}
    >
      <form onSubmit={form.onSubmit((v) => save.mutate(v))}>
        <Stack>
          <ErrorAlert error={save.error} />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label={t('form.username')} required autoComplete="off" {...form.getInputProps('username')} />
            <TextInput
              label={t('form.displayName')}
              description={t('form.displayNameHint')}
              {...form.getInputProps('displayName')}
            />
            <TextInput
              label={t('form.email')}
              description={t('form.emailHint')}
              type="email"
              {...form.getInputProps('email')}
            />
            <TextInput
              label={t('form.phone')}
              description={t('form.phoneHint')}
              type="tel"
              {...form.getInputProps('phone')}
            />
            <Select
              label={t('form.role')}
              allowDeselect={false}
              {...(creating ? {} : { description: t('form.roleHint') })}
              data={(['viewer', 'operator', 'admin'] as const).map((r) => ({ value: r, label: t(`roles.${r}`) }))}
              {...form.getInputProps('role')}
            />
            <PasswordInput
              label={creating ? t('form.password') : t('form.passwordEdit')}
              required={creating}
              autoComplete="new-password"
              {...(creating ? {} : { description: t('form.passwordEditHint') })}
              {...form.getInputProps('password')}
            />
          </SimpleGrid>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('actions.cancel', { ns: 'common' })}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {creating ? t('actions.create', { ns: 'common' }) : t('actions.save', { ns: 'common' })}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
