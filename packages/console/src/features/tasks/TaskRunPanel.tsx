import { Anchor, Button, Card, Group, Text } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LiveLog } from '../../components/LiveLog.tsx';
import { taskKeys } from './task-queries.ts';

export interface WatchedRun {
  kind: 'backup' | 'verify';
  id: number;
}

/** The live log of a run started here (or already running), with a link to its record. */
export function TaskRunPanel({
  run,
  taskId,
  expectedBytes,
  onClose,
}: {
  run: WatchedRun;
  taskId: number;
  expectedBytes: number | null;
  onClose: () => void;
}) {
  const { t } = useTranslation('tasks');
  const qc = useQueryClient();
  const path =
    run.kind === 'backup' ? `/api/backup/records/${run.id}/logs/stream` : `/api/verify/records/${run.id}/logs/stream`;
  const link = run.kind === 'backup' ? `/records/${run.id}` : `/verifications/${run.id}`;
  return (
    <Card withBorder mb="md" data-testid="task-run-panel">
      <Group justify="space-between" mb="xs">
        <Text fw={600}>
          {run.kind === 'backup' ? t('detail.runTitle', { id: run.id }) : t('detail.verifyTitle', { id: run.id })}
        </Text>
        <Group gap="xs">
          <Anchor component={Link} to={link} size="sm">
            {t('detail.openRecord')}
          </Anchor>
          <Button size="xs" variant="subtle" leftSection={<IconX size={14} />} onClick={onClose}>
            {t('actions.close', { ns: 'common' })}
          </Button>
        </Group>
      </Group>
      <LiveLog
        key={path}
        path={path}
        expectedBytes={run.kind === 'backup' ? expectedBytes : null}
        onDone={() => {
          void qc.invalidateQueries({ queryKey: taskKeys.detail(taskId) });
          void qc.invalidateQueries({ queryKey: taskKeys.records(taskId) });
          void qc.invalidateQueries({ queryKey: taskKeys.list() });
        }}
      />
    </Card>
  );
}
