import { Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { KEY_LIFETIMES, type Role } from './user-form.ts';

/** Name, role and lifetime of a new key; the created key is handed to `onCreated` to be shown once. */
export function CreateKeyModal({ onClose, onCreated }: { onClose: () => void; onCreated: (plainKey: string) => void }) {
  const { t } = useTranslation('users');
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { name: '', role: 'viewer' as Role, ttlHours: '0' },
    validate: { name: (v) => (v.trim() ? null : t('keys.form.nameHint')) },
  });
  const create = useMutation({
    mutationFn: (v: typeof form.values) =>
      unwrap(
        api.POST('/api/api-keys', {
          body: { name: v.name.trim(), role: v.role, ...(v.ttlHours !== '0' ? { ttlHours: Number(v.ttlHours) } : {}) },
        }),
      ),
    onSuccess: (r) => {
      notifications.show({ color: 'teal', message: t('keys.done.created', { name: r.apiKey.name }) });
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
      onCreated(r.plainKey);
    },
  });
  return (
    <Modal opened onClose={onClose} title={t('keys.form.title')}>
      <form onSubmit={form.onSubmit((v) => create.mutate(v))}>
        <Stack>
          <ErrorAlert error={create.error} />
          <TextInput
            label={t('keys.form.name')}
            description={t('keys.form.nameHint')}
            required
            maxLength={128}
            data-autofocus
            {...form.getInputProps('name')}
          />
          <Select
            label={t('keys.form.role')}
            allowDeselect={false}
            data={(['viewer', 'operator', 'admin'] as const).map((r) => ({ value: r, label: t(`roles.${r}`) }))}
            {...form.getInputProps('role')}
          />
          <Select
            label={t('keys.form.lifetime')}
            allowDeselect={false}
            {...form.getInputProps('ttlHours')}
            data={KEY_LIFETIMES.map((h) => ({
              value: String(h),
              label: h === 0 ? t('keys.lifetimes.never') : t('keys.lifetimes.days', { count: h / 24 }),
            }))}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('actions.cancel', { ns: 'common' })}
            </Button>
            <Button type="submit" loading={create.isPending}>
              {t('keys.form.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
