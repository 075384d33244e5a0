import { Button } from '@mantine/core';
import { IconPlugConnected } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/api-error.ts';
import { targetKeys } from './target-queries.ts';

/** Tests a saved target (POST …/test); the outcome is recorded on the target, shown as a notification with the error code. */
export function TestTargetButton({ id, name, size = 'xs' }: { id: number; name: string; size?: string }) {
  const { t } = useTranslation('targets');
  const queryClient = useQueryClient();
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/api/storage-targets/{id}/test', { params: { path: { id } } })),
    onSuccess: (result) =>
      notifications.show({ color: 'green', title: `${name}: ${t('test.ok')}`, message: result.message }),
    onError: (err) =>
      notifications.show({
        color: 'red',
        title: `${name}: ${t('test.failed')}`,
        autoClose: 15_000,
        message: `${err.message}${err instanceof ApiError ? ` (${err.code})` : ''}`,
      }),
    // Passed or failed, the target's last test changed.
    onSettled: () => queryClient.invalidateQueries({ queryKey: targetKeys.all }),
  });
  return (
    <Button
      size={size}
      variant="default"
      leftSection={<IconPlugConnected size={14} />}
      loading={test.isPending}
      onClick={() => test.mutate()}
      aria-label={t('test.runLabel', { name })}
    >
      {t('test.run')}
    </Button>
  );
}
