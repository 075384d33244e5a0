import { Button, Menu, Text } from '@mantine/core';
import { IconChevronDown, IconShieldCheck } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';

/** Starts a quick or deep verification (POST /api/backup/records/{id}/verify {mode}) and opens it. */
export function VerifyMenu({ recordId, onError }: { recordId: number; onError: (err: unknown) => void }) {
  const { t } = useTranslation('records');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: (mode: 'quick' | 'deep') =>
      unwrap(api.POST('/api/backup/records/{id}/verify', { params: { path: { id: recordId } }, body: { mode } })),
    onSuccess: (v) => {
      notifications.show({ color: 'green', message: t('actions.verifyStarted', { id: v.id }) });
      void queryClient.invalidateQueries({ queryKey: ['verify-records'] });
      void navigate(`/verifications/${v.id}`);
    },
    onError,
  });
  return (
    <Menu position="bottom-end" width={320}>
      <Menu.Target>
        <Button
          variant="default"
          leftSection={<IconShieldCheck size={16} />}
          rightSection={<IconChevronDown size={14} />}
          loading={verify.isPending}
        >
          {t('actions.verify')}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {(['quick', 'deep'] as const).map((mode) => (
          <Menu.Item
            key={mode}
            onClick={() => {
              onError(null);
              verify.mutate(mode);
            }}
          >
            <Text size="sm" fw={500}>
              {mode === 'quick' ? t('actions.verifyQuick') : t('actions.verifyDeep')}
            </Text>
            <Text size="xs" c="dimmed">
              {mode === 'quick' ? t('actions.verifyQuickHint') : t('actions.verifyDeepHint')}
            </Text>
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
