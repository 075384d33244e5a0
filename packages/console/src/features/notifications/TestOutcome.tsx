import { Alert } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';

/** The answer of a channel test: the service's confirmation, or its refusal with the error code. */
export function TestOutcome({ data, error }: { data: { message: string } | undefined; error: unknown }) {
  const { t } = useTranslation('notifications');
  if (error) return <ErrorAlert error={error} title={t('test.failed')} />;
  if (!data) return null;
  return (
    <Alert color="green" icon={<IconCheck size={18} />} title={t('test.ok')} role="status">
      {data.message}
    </Alert>
  );
}
