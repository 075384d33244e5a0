import { Button, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';

export interface PromptValues {
  currentPassword: string;
  code: string;
}

/** Asks the current password (and, when `withCode`, an authenticator code) before a security change. */
export function PasswordPrompt({
  title,
  hint,
  withCode,
  confirmLabel,
  danger,
  loading,
  error,
  onSubmit,
  onClose,
}: {
  title: string;
  hint?: string;
  withCode?: boolean;
  confirmLabel: string;
  danger?: boolean;
  loading: boolean;
  error: unknown;
  onSubmit: (v: PromptValues) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('account');
  const form = useForm<PromptValues>({ initialValues: { currentPassword: '', code: '' } });
  return (
    <Modal opened onClose={onClose} title={title}>
      <form onSubmit={form.onSubmit((v) => onSubmit({ currentPassword: v.currentPassword, code: v.code.trim() }))}>
        <Stack>
          {hint && <Text size="sm">{hint}</Text>}
          <ErrorAlert error={error} />
          <PasswordInput
            label={t('common.currentPassword')}
            required
            autoComplete="current-password"
            data-autofocus
            {...form.getInputProps('currentPassword')}
          />
          {withCode && (
            <TextInput
              label={t('common.code')}
              description={t('common.codeHint')}
              required
              autoComplete="one-time-code"
              {...form.getInputProps('code')}
            />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('actions.cancel', { ns: 'common' })}
            </Button>
            <Button type="submit" color={danger ? 'red' : undefined} loading={loading}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
