import { useState } from 'react';
import { Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { writeSession } from '../../api/session.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';

/** First run: creates the administrator (POST /api/auth/setup) and signs in with the session it returns. */
export function SetupPage() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  const form = useForm({
    initialValues: { username: 'admin', displayName: '', password: '', confirm: '' },
    validate: {
      password: (v) => (v.length < 8 ? t('setup.passwordHint') : null),
      confirm: (v, values) => (v !== values.password ? t('setup.mismatch') : null),
    },
  });
  const submit = form.onSubmit(async (values) => {
    setError(null);
    try {
      const session = await unwrap(
        api.POST('/api/auth/setup', {
          body: {
            username: values.username,
            password: values.password,
            ...(values.displayName ? { displayName: values.displayName } : {}),
          },
        }),
      );
      writeSession(session);
      // The signed-in layout asked before setup (cached as not initialized): it would send us back here.
      queryClient.setQueryData(['setup-status'], { initialized: true });
      void navigate('/');
    } catch (err) {
      setError(err);
    }
  });
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" w={420} maw="100%" component="main">
        <form onSubmit={submit}>
          <Stack>
            <Title order={1} size="h2">
              {t('setup.title')}
            </Title>
            <Text c="dimmed" size="sm">
              {t('setup.intro')}
            </Text>
            <ErrorAlert error={error} />
            <TextInput
              label={t('setup.username')}
              required
              autoComplete="username"
              {...form.getInputProps('username')}
            />
            <TextInput label={t('setup.displayName')} {...form.getInputProps('displayName')} />
            <PasswordInput
              label={t('setup.password')}
              description={t('setup.passwordHint')}
              required
              autoComplete="new-password"
              {...form.getInputProps('password')}
            />
            <PasswordInput
              label={t('setup.confirm')}
              required
              autoComplete="new-password"
              {...form.getInputProps('confirm')}
            />
            <Button type="submit" loading={form.submitting}>
              {t('setup.submit')}
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
