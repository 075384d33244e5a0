import { useMemo, useState } from 'react';
import { Button, Grid, Group, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/api-error.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { fieldErrors, sourceKind, taskInputFromForm, type TaskFormValues } from './task-form-model.ts';
import { cronPreview } from './cron-preview.ts';
import {
  taskKeys,
  useNodes,
  useScheduleZone,
  useStorageTargets,
  useTaskList,
  useTaskRecords,
  useTaskTags,
  useTaskTypes,
  useDatabaseTypes,
} from './task-queries.ts';
import { BasicsSection } from './form/BasicsSection.tsx';
import { SourceSection } from './form/SourceSection.tsx';
import { PlacementSection } from './form/PlacementSection.tsx';
import { ScheduleSection } from './form/ScheduleSection.tsx';
import { RetentionSection } from './form/RetentionSection.tsx';
import { OptionsSection } from './form/OptionsSection.tsx';

/** The one create/edit form for every task type, built on TaskInput (task-form-model.ts). */
export function TaskForm({
  initial,
  taskId,
  passwordStored,
}: {
  initial: TaskFormValues;
  taskId: number | null;
  passwordStored: boolean;
}) {
  const { t } = useTranslation('tasks');
  const navigate = useNavigate();
  const qc = useQueryClient();
  const zone = useScheduleZone();
  const drivers = useDatabaseTypes();
  const [otherErrors, setOtherErrors] = useState<unknown>(null);
  const form = useForm<TaskFormValues>({
    initialValues: initial,
    validate: {
      name: (v) => (v.trim() === '' ? t('validation.required') : null),
      cronExpr: (v) => (cronPreview(v).kind === 'invalid' ? t('validation.cron') : null),
      storageTargetIds: (v) => (v.length === 0 ? t('validation.target') : null),
      // Whether the type is `file` needs no driver list.
      sourcePaths: (v, all) =>
        sourceKind(all.type, []) === 'file' && v.every((p) => p.trim() === '') ? t('validation.path') : null,
      nodeId: (v, all) => (all.placement === 'node' && v === '' ? t('validation.node') : null),
      nodeLabel: (v, all) => (all.placement === 'pool' && v.trim() === '' ? t('validation.label') : null),
    },
  });

  const types = useTaskTypes();
  const tags = useTaskTags();
  const targets = useStorageTargets();
  const nodes = useNodes();
  const tasks = useTaskList();
  const records = useTaskRecords(taskId ?? 0);

  const targetOptions = useMemo(
    () => (targets.data ?? []).map((x) => ({ value: String(x.id), label: `${x.name} (${x.type})` })),
    [targets.data],
  );
  const remoteNodes = (nodes.data ?? []).filter((n) => !n.isLocal);
  const nodeOptions = remoteNodes.map((n) => ({ value: String(n.id), label: `${n.name} · ${n.status}` }));
  const labels = [
    ...new Set(
      remoteNodes.flatMap((n) =>
        n.labels
          .split(',')
          .map((l) => l.trim())
          .filter(Boolean),
      ),
    ),
  ];
  const localNode = nodes.data?.find((n) => n.isLocal);
  const v = form.values;
  const browseNodeId =
    v.placement === 'node' && v.nodeId ? Number(v.nodeId) : v.placement === 'master' ? (localNode?.id ?? null) : null;
  const otherTasks = (tasks.data?.items ?? [])
    .filter((x) => x.id !== taskId)
    .map((x) => ({ value: String(x.id), label: x.name }));

  const save = useMutation({
    mutationFn: (values: TaskFormValues) => {
      const body = taskInputFromForm(values, drivers);
      return taskId === null
        ? unwrap(api.POST('/api/backup/tasks', { body }))
        : unwrap(api.PUT('/api/backup/tasks/{id}', { params: { path: { id: taskId } }, body }));
    },
    onSuccess: (task) => {
      notifications.show({
        color: 'green',
        message: taskId === null ? t('notify.created', { name: task.name }) : t('notify.saved', { name: task.name }),
      });
      void qc.invalidateQueries({ queryKey: taskKeys.all });
      void navigate(`/tasks/${task.id}`);
    },
    onError: (err) => {
      if (err instanceof ApiError && err.details) {
        const { byField, rest } = fieldErrors(err.details);
        form.setErrors(byField);
        setOtherErrors(rest.length ? new ApiError(err.status, err.code, `${err.message} ${rest.join('; ')}`) : err);
      } else setOtherErrors(err);
    },
  });

  return (
    <form
      onSubmit={form.onSubmit((values) => {
        setOtherErrors(null);
        save.mutate(values);
      })}
      noValidate
    >
      <Grid>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <BasicsSection form={form} types={types.data ?? ['file']} tags={tags.data ?? []} />
          <SourceSection
            form={form}
            browseNodeId={browseNodeId}
            discoverNodeId={v.placement === 'node' ? Number(v.nodeId) || 0 : 0}
            passwordStored={passwordStored}
            taskId={taskId}
          />
          <PlacementSection form={form} targets={targetOptions} nodes={nodeOptions} labels={labels} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <ScheduleSection form={form} timeZone={zone} otherTasks={otherTasks} />
          <RetentionSection
            form={form}
            timeZone={zone}
            records={taskId === null ? null : (records.data?.items ?? [])}
          />
          <OptionsSection form={form} timeZone={zone} />
        </Grid.Col>
      </Grid>
      <Stack gap="xs">
        {otherErrors !== null && <ErrorAlert error={otherErrors} title={t('form.saveFailed')} />}
        <Group justify="flex-end">
          <Button variant="default" component={Link} to={taskId === null ? '/tasks' : `/tasks/${taskId}`}>
            {t('actions.cancel', { ns: 'common' })}
          </Button>
          <Button type="submit" loading={save.isPending}>
            {taskId === null ? t('form.create') : t('actions.save', { ns: 'common' })}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
