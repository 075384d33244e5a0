import { Group, Progress, Stack, Text, Tooltip } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { isActive } from './run-state.ts';

/**
 * A run's status badge, from its precise `state` (the API's `status` shows a queued run as
 * running), with an indeterminate bar while it is queued or running: the record views carry no
 * progress figures (those come only on the live log, see LiveLog).
 */
export function RunStatus({ state, locked = false }: { state: string; locked?: boolean }) {
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
          <Progress value={100} striped animated={state === 'running'} size="sm" w={96}
            aria-label={state === 'queued' ? t('progress.queued') : t('progress.running')} />
          {state === 'queued' && <Text size="xs" c="dimmed">{t('progress.queued')}</Text>}
        </>
      )}
    </Stack>
  );
}
