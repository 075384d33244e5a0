import { useState } from 'react';
import { Button, Group, Stack, Tooltip } from '@mantine/core';
import { IconDownload, IconLock, IconLockOpen, IconPlayerStop, IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, downloadFile, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useCan } from '../../app/use-session.ts';
import type { ResponseData } from '../../api/types.ts';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { ReplicateButton } from './ReplicateButton.tsx';
import { VerifyMenu } from './VerifyMenu.tsx';
import { hasArtifact, isActive } from './run-state.ts';

type Detail = ResponseData<'/api/backup/records/{id}', 'get'>;

/**
 * A record's actions. Download is a read (any signed-in user); the rest are for operators and
 * admins, as the routes' access says. A refusal shows with the server's code.
 */
export function RecordActions({ record: r }: { record: Detail }) {
  const { t } = useTranslation('records');
  const can = useCan();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['backup-records'] });
  const path = { params: { path: { id: r.id } } };

  const download = useMutation({
    // The API picks the first intact copy (it takes no copy parameter).
    mutationFn: () => downloadFile(`/api/backup/records/${r.id}/download`, r.fileName || `record-${r.id}`),
    onMutate: () => setError(null),
    onSuccess: () => notifications.show({ message: t('actions.downloadStarted') }),
    onError: setError,
  });
  const lock = useMutation({
    mutationFn: (locked: boolean) => unwrap(api.PUT('/api/backup/records/{id}/lock', { ...path, body: { locked } })),
    onMutate: () => setError(null),
    onSuccess: (d) => {
      notifications.show({ color: 'green', message: d.locked ? t('actions.locked') : t('actions.unlocked') });
      queryClient.setQueryData(['backup-records', r.id], d);
      void refresh();
    },
    onError: setError,
  });

  const artifact = hasArtifact(r.state);
  const active = isActive(r.state);
  const heldBy = r.storageUploadResults
    .filter((c) => c.status === 'success' || c.status === 'corrupt')
    .map((c) => c.storageTargetId);
  return (
    <Stack gap="xs" align="flex-end">
      <Group gap="xs" justify="flex-end">
        {artifact && (
          <Button
            variant="default"
            leftSection={<IconDownload size={16} />}
            loading={download.isPending}
            onClick={() => download.mutate()}
          >
            {t('actions.download')}
          </Button>
        )}
        {can('write') && artifact && <VerifyMenu recordId={r.id} onError={setError} />}
        {can('write') && artifact && <ReplicateButton recordId={r.id} heldBy={heldBy} />}
        {can('write') && !active && (
          <Button
            variant="default"
            leftSection={r.locked ? <IconLockOpen size={16} /> : <IconLock size={16} />}
            loading={lock.isPending}
            onClick={() => lock.mutate(!r.locked)}
          >
            {r.locked ? t('actions.unlock') : t('actions.lock')}
          </Button>
        )}
        {can('write') && active && (
          <ConfirmButton
            label={t('actions.cancel')}
            message={t('actions.cancelConfirm')}
            color="orange"
            leftSection={<IconPlayerStop size={16} />}
            onConfirm={async () => {
              await unwrap(api.POST('/api/backup/records/{id}/cancel', path));
              notifications.show({ message: t('actions.cancelled') });
              await refresh();
            }}
          />
        )}
        {can('write') && !active && (
          <Tooltip label={t('actions.lockedNoDelete')} disabled={!r.locked}>
            {/* The server refuses a locked record (BACKUP_RECORD_LOCKED); the button says so before it is pressed. */}
            <span>
              <ConfirmButton
                label={t('actions.delete')}
                message={t('actions.deleteConfirm', { id: r.id })}
                leftSection={<IconTrash size={16} />}
                disabled={r.locked}
                onConfirm={async () => {
                  await unwrap(api.DELETE('/api/backup/records/{id}', path));
                  notifications.show({ color: 'green', message: t('actions.deleted', { id: r.id }) });
                  queryClient.removeQueries({ queryKey: ['backup-records', r.id] });
                  void refresh();
                  void navigate('/records');
                }}
              />
            </span>
          </Tooltip>
        )}
      </Group>
      <ErrorAlert error={error} />
    </Stack>
  );
}
