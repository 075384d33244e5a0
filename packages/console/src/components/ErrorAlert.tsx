import { Alert, Code, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/api-error.ts';

/** An error as the API gave it: its message and its stable code, which users can search for in docs/error-codes.md. */
export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  const { t } = useTranslation();
  if (!error) return null;
  const code = error instanceof ApiError ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <Alert
      color="red"
      icon={<IconAlertTriangle size={18} />}
      title={title ?? t('error.title')}
      role="alert"
      data-error-code={code}
    >
      <Text size="sm">{message}</Text>
      {code && (
        <Text size="xs" mt={4}>
          {t('error.code', { code: '' })}
          <Code>{code}</Code>
        </Text>
      )}
    </Alert>
  );
}
