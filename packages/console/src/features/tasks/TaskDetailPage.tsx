import { useMemo, useState } from 'react';
import { Button, Switch } from '@mantine/core';
import { IconEdit, IconPlayerPlay, IconShieldCheck } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { Link, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { useCan } from '../../app/use-session.ts';
import { taskKeys, useScheduleZone, useTask, useTaskList, useTaskRecords } from './task-queries.ts';
import { useTaskMutations } from './use-task-mutations.ts';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { TaskConfigSummary } from './TaskConfigSummary.tsx';
import { TaskRecentRecords } from './TaskRecentRecords.tsx';
import { TaskRunPanel, type WatchedRun } from './TaskRunPanel.tsx';

/** /tasks/:id: settings, next runs, recent records; run now (with its live log), verify now, edit, toggle, delete. */
export function TaskDetailPage() {
  const { t } = useTranslation('tasks');
  const id = Number(useParams().id);
  const navigate = useNavigate();
  const qc = useQueryClient();
  const can = useCan();
  const task = useTask(id);
  const records = useTaskRecords(id, 10);
  const tasks = useTaskList();
  const zone = useScheduleZone();
  const m = useTaskMutations();
  const [watched, setWatched] = useState<WatchedRun | null>(null);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const taskNames = useMemo(() => new Map((tasks.data?.items ?? []).map((x) => [x.id, x.name])), [tasks.data]);
  const items = records.data?.items ?? [];
  const running = items.find((r) => r.state === 'running' || r.state === 'queued');
  const lastGood = items.find((r) => r.state === 'success');
  const shown: WatchedRun | null =
    watched ?? (running && running.id !== dismissed ? { kind: 'backup', id: running.id } : null);

  const verify = useMutation({
    mutationFn: () => unwrap(api.POST('/api/backup/tasks/{id}/verify', { params: { path: { id } }, body: {} })),
    onSuccess: (v) => {
      setWatched({ kind: 'verify', id: v.id });
      notifications.show({ color: 'green', message: t('notify.verifyStarted', { id: v.id }) });
      void qc.invalidateQueries({ queryKey: ['verifications'] });
    },
    onError: (err) =>
      notifications.show({
        color: 'red',
        title: t('notify.failed'),
        message: 'code' in err ? `${err.message} (${String(err.code)})` : err.message,
      }),
  });

  return (
    <QueryState query={task}>
      {(data) => (
        <>
          <PageHeader
            title={data.name}
            description={t('detail.subtitle', { type: data.type })}
            actions={
              <>
                <StatusBadge status={data.enabled ? 'enabled' : 'disabled'} />
                {can('write') && (
                  <>
                    <Switch
                      label={t('fields.enabled')}
                      checked={data.enabled}
                      onChange={(e) => m.toggle.mutate({ id, enabled: e.currentTarget.checked })}
                      disabled={m.toggle.isPending}
                    />
                    <Button
                      leftSection={<IconPlayerPlay size={16} />}
                      loading={m.run.isPending}
                      onClick={() =>
                        m.run.mutate(id, {
                          onSuccess: (r) => {
                            setWatched({ kind: 'backup', id: r.recordId });
                            void qc.invalidateQueries({ queryKey: taskKeys.records(id) });
                          },
                        })
                      }
                    >
                      {t('detail.runNow')}
                    </Button>
                    <Button
                      variant="default"
                      leftSection={<IconShieldCheck size={16} />}
                      loading={verify.isPending}
                      onClick={() => verify.mutate()}
                    >
                      {t('detail.verifyNow')}
                    </Button>
                    <Button
                      variant="default"
                      component={Link}
                      to={`/tasks/${id}/edit`}
                      leftSection={<IconEdit size={16} />}
                    >
                      {t('actions.edit', { ns: 'common' })}
                    </Button>
                    <ConfirmButton
                      label={t('actions.delete', { ns: 'common' })}
                      title={t('detail.deleteTitle')}
                      message={t('detail.deleteMessage', { name: data.name })}
                      loading={m.remove.isPending}
                      onConfirm={() => m.remove.mutate(id, { onSuccess: () => void navigate('/tasks') })}
                    />
                  </>
                )}
              </>
            }
          />
          {shown && (
            <TaskRunPanel
              run={shown}
              taskId={id}
              expectedBytes={lastGood?.rawSize ?? null}
              onClose={() => {
                setDismissed(shown.id);
                setWatched(null);
              }}
            />
          )}
          <TaskConfigSummary task={data} timeZone={zone} taskNames={taskNames} />
          <QueryState query={records}>
            {(r) => (
              <TaskRecentRecords
                records={r.items}
                total={r.total}
                taskId={id}
                onWatch={(rid) => setWatched({ kind: 'backup', id: rid })}
              />
            )}
          </QueryState>
        </>
      )}
    </QueryState>
  );
}
