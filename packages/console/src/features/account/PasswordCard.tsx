import { Button, PasswordInput, SimpleGrid, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Section } from './Section.tsx';

/** PUT /api/auth/password: this session stays; other sessions and trusted browsers end. */
export function PasswordCard() {
  const { t } = useTranslation('account');
  const form = useForm({
    initialValues: { oldPassword: '', newPassword: '', repeat: '' },
    validate: {
      newPassword: (v) => (v.length < 8 || v.length > 128 ? t('password.tooShort') : null),
      repeat: (v, all) => (v !== all.newPassword ? t('password.mismatch') : null),
    },
  });
  const change = useMutation({
    mutationFn: (v: typeof form.values) =>
      unwrap(api.PUT('/api/auth/password', { body: { oldPassword: v.oldPassword, newPassword: v.newPassword } })),
    onSuccess: () => {
      notifications.show({ color: 'teal', message: t('password.done') });
      form.reset();
    },
  });
  return (
    <Section title={t('password.title')} intro={t('password.hint')} testId="password">
      <form onSubmit={form.onSubmit((v) => change.mutate(v))}>
        <Stack>
          <ErrorAlert error={change.error} />
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <PasswordInput
              label={t('password.current')}
              required
              autoComplete="current-password"
              {...form.getInputProps('oldPassword')}
            />
            <PasswordInput
              label={t('password.next')}
              required
              autoComplete="new-password"
              {...form.getInputProps('newPassword')}
            />
            <PasswordInput
              label={t('password.repeat')}
              required
              autoComplete="new-password"
              {...form.getInputProps('repeat')}
            />
          </SimpleGrid>
          <div>
            <Button type="submit" loading={change.isPending}>
              {t('password.submit')}
            </Button>
          </div>
        </Stack>
      </form>
    </Section>
  );
}
