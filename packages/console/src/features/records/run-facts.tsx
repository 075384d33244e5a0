import type { ReactNode } from 'react';
import { Anchor } from '@mantine/core';
import { Link } from 'react-router';
import type { TFunction } from 'i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatDuration } from '../../lib/time.ts';
import { RunStatus } from './RunStatus.tsx';
import { isActive } from './run-state.ts';

interface Run {
  state: string;
  backupRecordId: number;
  taskId: number;
  taskName: string;
  triggeredBy: string;
  durationSeconds: number;
  queuedAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

type Fact = [string, ReactNode];

/** The facts every restore, verification and replication record has: status, source, task, times. */
export function runHead(r: Run, t: TFunction<'records'>): Fact[] {
  return [
    [t('col.status'), <RunStatus state={r.state} />],
    [
      t('run.backupRecord'),
      <Anchor component={Link} to={`/records/${r.backupRecordId}`}>
        {t('run.openRecord', { id: r.backupRecordId })}
      </Anchor>,
    ],
    [
      t('detail.task'),
      <Anchor component={Link} to={`/tasks/${r.taskId}`}>
        {r.taskName}
      </Anchor>,
    ],
  ];
}

export function runTimes(r: Run, t: TFunction<'records'>): Fact[] {
  const active = isActive(r.state);
  return [
    [t('detail.queuedAt'), <RelativeTime value={r.queuedAt} />],
    [t('detail.startedAt'), <RelativeTime value={r.startedAt} />],
    [t('detail.completedAt'), active ? '—' : <RelativeTime value={r.completedAt} />],
    [t('detail.duration'), active ? '—' : formatDuration(r.durationSeconds)],
    [t('detail.triggeredBy'), r.triggeredBy || '—'],
  ];
}
