import { useState } from 'react';
import { Button, Code, List, Modal, Stack, Text, Group } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import type { ResponseData } from '../../api/types.ts';

type Result = ResponseData<'/api/backup/records/batch-delete', 'post'>;

/** Deletes the selected records (POST /api/backup/records/batch-delete, 1–100 ids) after a confirmation; lists those the server kept, with its codes. */
export function BatchDeleteButton({ ids, onDone }: { ids: number[]; onDone: () => void }) {
  const { t } = useTranslation('records');
  const { t: tc } = useTranslation();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const remove = useMutation({
    mutationFn: () => unwrap(api.POST('/api/backup/records/batch-delete', { body: { ids: ids.slice(0, 100) } })),
    onSuccess: (r) => {
      notifications.show({
        color: r.failed ? 'orange' : 'green',
        message: t('list.batchDone', { succeeded: r.succeeded, failed: r.failed }),
      });
      void queryClient.invalidateQueries({ queryKey: ['backup-records'] });
      // The button goes away with the selection, so the selection is cleared once the outcome was seen.
      if (r.failed) setResult(r);
      else {
        setOpen(false);
        onDone();
      }
    },
  });
  const close = () => {
    const finished = result !== null;
    setOpen(false);
    setResult(null);
    remove.reset();
    if (finished) onDone();
  };
  return (
    <>
      <Button color="red" variant="light" leftSection={<IconTrash size={16} />} onClick={() => setOpen(true)}>
        {t('list.deleteSelected')} ({ids.length})
      </Button>
      <Modal opened={open} onClose={close} title={t('list.deleteSelected')}>
        <Stack>
          {!result && <Text>{t('list.batchConfirm', { count: Math.min(ids.length, 100) })}</Text>}
          <ErrorAlert error={remove.error} />
          {result && (
            <>
              <Text fw={500}>{t('list.batchFailures')}</Text>
              <List size="sm">
                {result.results
                  .filter((r) => !r.success)
                  .map((r) => (
                    <List.Item key={r.id}>
                      #{r.id}: {r.error} {r.code && <Code>{r.code}</Code>}
                    </List.Item>
                  ))}
              </List>
            </>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {result ? tc('actions.close') : tc('actions.cancel')}
            </Button>
            {!result && (
              <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
                {tc('actions.delete')}
              </Button>
            )}
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
