import { Group, Progress, Stack, Text, Tooltip } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { isActive } from './run-state.ts';
import { formatBytes } from '../../lib/time.ts';

/** A backup's last progress frame, as the record views report it while it runs. */
export interface RunProgress {
  bytesRead: number;
  speedBps: number;
}

/**
 * A run's status badge, from its precise `state` (the API's `status` shows a queued run as
 * running), with a bar while it is queued or running, and, for a backup that reported progress,
 * the bytes read so far and the speed (its total is unknown until it ends, so the bar moves without a percentage).
 */
export function RunStatus({
  state,
  locked = false,
  progress = null,
}: {
  state: string;
  locked?: boolean;
  progress?: RunProgress | null;
}) {
  const { t } = useTranslation('records');
  return (
    <Stack gap={4}>
      <Group gap={4} wrap="nowrap">
        <StatusBadge status={state} />
        {locked && (
          <Tooltip label={t('lockedHint')}>
            <IconLock size={14} aria-label={t('locked')} role="img" />
          </Tooltip>
        )}
      </Group>
      {isActive(state) && (
        <>
          <Progress
            value={100}
            striped
            animated={state === 'running'}
            size="sm"
            w={96}
            aria-label={state === 'queued' ? t('progress.queued') : t('progress.running')}
          />
          {state === 'queued' && (
            <Text size="xs" c="dimmed">
              {t('progress.queued')}
            </Text>
          )}
          {state === 'running' && progress && (
            <Text size="xs" c="dimmed">
              {t('progress.figures', { read: formatBytes(progress.bytesRead), speed: formatBytes(progress.speedBps) })}
            </Text>
          )}
        </>
      )}
    </Stack>
  );
}
