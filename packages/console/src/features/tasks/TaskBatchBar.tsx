import { Button, Group, Text } from '@mantine/core';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { useTranslation } from 'react-i18next';
import { useTaskMutations } from './use-task-mutations.ts';

/** Actions on the selected tasks (writers only): run, enable, disable, delete. */
export function TaskBatchBar({ ids, onDone }: { ids: number[]; onDone: () => void }) {
  const { t } = useTranslation('tasks');
  const m = useTaskMutations();
  if (ids.length === 0) return null;
  const busy = m.batchRun.isPending || m.batchToggle.isPending || m.batchDelete.isPending;
  return (
    <Group
      gap="xs"
      mb="sm"
      p="xs"
      bg="var(--mantine-color-default-hover)"
      style={{ borderRadius: 4 }}
      role="toolbar"
      aria-label={t('batch.label')}
    >
      <Text size="sm" fw={500}>
        {t('batch.selected', { count: ids.length })}
      </Text>
      <Button size="xs" loading={busy} onClick={() => m.batchRun.mutate(ids, { onSuccess: onDone })}>
        {t('batch.run')}
      </Button>
      <Button
        size="xs"
        variant="default"
        disabled={busy}
        onClick={() => m.batchToggle.mutate({ ids, enabled: true }, { onSuccess: onDone })}
      >
        {t('batch.enable')}
      </Button>
      <Button
        size="xs"
        variant="default"
        disabled={busy}
        onClick={() => m.batchToggle.mutate({ ids, enabled: false }, { onSuccess: onDone })}
      >
        {t('batch.disable')}
      </Button>
      <ConfirmButton
        label={t('batch.delete')}
        title={t('batch.delete')}
        message={t('batch.confirmDelete', { count: ids.length })}
        size="xs"
        disabled={busy}
        onConfirm={() => m.batchDelete.mutate(ids, { onSuccess: onDone })}
      />
    </Group>
  );
}
