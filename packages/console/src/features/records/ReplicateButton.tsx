import { useState } from 'react';
import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { IconCopy } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useStorageTargets } from './use-options.ts';

/**
 * Copies the record to a storage target chosen from the enabled ones that do not hold it yet
 * (POST /api/backup/records/{id}/replicate {destTargetId}), then opens the replication record.
 */
export function ReplicateButton({ recordId, heldBy }: { recordId: number; heldBy: number[] }) {
  const { t } = useTranslation('records');
  const { t: tc } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState<string | null>(null);
  const targets = useStorageTargets();
  const options = (targets.data ?? [])
    .filter((s) => s.enabled && !heldBy.includes(s.id))
    .map((s) => ({ value: String(s.id), label: `${s.name} (${s.type})` }));
  const replicate = useMutation({
    mutationFn: (destTargetId: number) =>
      unwrap(
        api.POST('/api/backup/records/{id}/replicate', { params: { path: { id: recordId } }, body: { destTargetId } }),
      ),
    onSuccess: (r) => {
      notifications.show({ color: 'green', message: t('actions.replicateStarted', { id: r.id }) });
      void queryClient.invalidateQueries({ queryKey: ['replication-records'] });
      void navigate(`/replications/${r.id}`);
    },
  });
  const close = () => {
    setOpen(false);
    replicate.reset();
  };
  return (
    <>
      <Button variant="default" leftSection={<IconCopy size={16} />} onClick={() => setOpen(true)}>
        {t('actions.replicate')}
      </Button>
      <Modal opened={open} onClose={close} title={t('actions.replicateTitle')}>
        <Stack>
          <Text size="sm" c="dimmed">
            {t('actions.replicateHint')}
          </Text>
          <ErrorAlert error={targets.error ?? replicate.error} />
          {targets.isSuccess && options.length === 0 ? (
            <Text size="sm">{t('actions.noOtherTargets')}</Text>
          ) : (
            <Select
              label={t('actions.replicateTarget')}
              data={options}
              value={target}
              onChange={setTarget}
              searchable
              required
              data-autofocus
            />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {tc('actions.cancel')}
            </Button>
            <Button
              disabled={target === null}
              loading={replicate.isPending}
              onClick={() => target && replicate.mutate(Number(target))}
            >
              {t('actions.replicate')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
