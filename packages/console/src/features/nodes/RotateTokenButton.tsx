import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconKey } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { nodeKeys } from './node-queries.ts';
import { TokenOnce } from './TokenOnce.tsx';

/** POST /api/nodes/{id}/rotate-token after a confirmation; the new token is shown once in the same dialog. */
export function RotateTokenButton({ id }: { id: number }) {
  const { t } = useTranslation('nodes');
  const { t: tc } = useTranslation();
  const queryClient = useQueryClient();
  const [opened, { open, close }] = useDisclosure(false);
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/nodes/{id}/rotate-token', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: nodeKeys.detail(id) }),
  });
  const done = () => {
    close();
    rotate.reset();
  };
  return (
    <>
      <Button variant="default" leftSection={<IconKey size={16} />} onClick={open}>
        {t('token.rotate')}
      </Button>
      <Modal
        opened={opened}
        onClose={done}
        title={t('token.rotateTitle')}
        size="lg"
        closeOnClickOutside={!rotate.isSuccess}
      >
        {rotate.isSuccess ? (
          <Stack>
            <Alert color="yellow">{t('token.once')}</Alert>
            {rotate.data.previousTokenValidUntil && (
              <Text size="sm">
                {t('token.previousValid', { time: '' })}
                <RelativeTime value={rotate.data.previousTokenValidUntil} />
              </Text>
            )}
            <TokenOnce token={rotate.data.token} open />
            <Group justify="flex-end">
              <Button onClick={done}>{tc('actions.close')}</Button>
            </Group>
          </Stack>
        ) : (
          <Stack>
            <Text size="sm">{t('token.rotateBody')}</Text>
            <ErrorAlert error={rotate.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={done}>
                {tc('actions.cancel')}
              </Button>
              <Button color="orange" loading={rotate.isPending} onClick={() => rotate.mutate()}>
                {t('token.rotate')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
}
