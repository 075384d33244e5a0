import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { taskKeys } from './task-queries.ts';

/** One batch item as the API answers it. */
interface BatchItem {
  id: number;
  name?: string;
  success: boolean;
  error?: string;
  code?: string;
}

function summarise(items: BatchItem[]): { ok: number; failed: BatchItem[] } {
  return { ok: items.filter((i) => i.success).length, failed: items.filter((i) => !i.success) };
}

/** Task mutations with their notifications and cache invalidation. */
export function useTaskMutations() {
  const { t } = useTranslation('tasks');
  const qc = useQueryClient();
  const done = () => qc.invalidateQueries({ queryKey: taskKeys.all });
  const fail = (err: Error) =>
    notifications.show({
      color: 'red',
      title: t('notify.failed'),
      message: 'code' in err ? `${err.message} (${String(err.code)})` : err.message,
    });
  const batchDone = (items: BatchItem[]) => {
    const { ok, failed } = summarise(items);
    notifications.show({
      color: failed.length ? 'orange' : 'green',
      title: t('notify.batchDone', { ok, total: items.length }),
      message: failed.map((f) => `#${f.id}: ${f.error ?? ''}${f.code ? ` (${f.code})` : ''}`).join('\n') || undefined,
    });
    void done();
  };
  return {
    toggle: useMutation({
      mutationFn: ({ id, enabled }: { id: number; enabled: boolean }) =>
        unwrap(api.PUT('/api/backup/tasks/{id}/toggle', { params: { path: { id } }, body: { enabled } })),
      onSuccess: (task) => {
        notifications.show({
          color: 'green',
          message: task.enabled ? t('notify.enabled', { name: task.name }) : t('notify.disabled', { name: task.name }),
        });
        void done();
      },
      onError: fail,
    }),
    remove: useMutation({
      mutationFn: (id: number) => unwrap(api.DELETE('/api/backup/tasks/{id}', { params: { path: { id } } })),
      onSuccess: () => {
        notifications.show({ color: 'green', message: t('notify.deleted') });
        void done();
      },
      onError: fail,
    }),
    run: useMutation({
      mutationFn: (id: number) => unwrap(api.POST('/api/backup/tasks/{id}/run', { params: { path: { id } } })),
      onSuccess: (r) => {
        notifications.show({ color: 'green', message: t('notify.started', { id: r.recordId }) });
        void done();
        void qc.invalidateQueries({ queryKey: ['records'] });
      },
      onError: fail,
    }),
    batchRun: useMutation({
      mutationFn: (ids: number[]) => unwrap(api.POST('/api/backup/tasks/batch/run', { body: { ids } })),
      onSuccess: batchDone,
      onError: fail,
    }),
    batchToggle: useMutation({
      mutationFn: ({ ids, enabled }: { ids: number[]; enabled: boolean }) =>
        unwrap(api.POST('/api/backup/tasks/batch/toggle', { body: { ids, enabled } })),
      onSuccess: batchDone,
      onError: fail,
    }),
    batchDelete: useMutation({
      mutationFn: (ids: number[]) => unwrap(api.POST('/api/backup/tasks/batch/delete', { body: { ids } })),
      onSuccess: batchDone,
      onError: fail,
    }),
  };
}
