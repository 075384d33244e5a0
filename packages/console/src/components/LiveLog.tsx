import { useEffect, useReducer, useRef } from 'react';
import { Box, Group, Loader, Paper, Progress, ScrollArea, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { readEventStream } from '../api/sse.ts';
import { ErrorAlert } from './ErrorAlert.tsx';
import { StatusBadge } from './StatusBadge.tsx';
import { formatBytes, formatDuration } from '../lib/time.ts';
import { applyLogEvent, initialLiveLog, parseLogEvent, progressPercent, type LiveLogState } from './live-log-state.ts';

export interface LiveLogProps {
  /** The stream URL, e.g. `/api/backup/records/12/logs/stream` (restore and verify records have the same shape). */
  path: string;
  /** Called once with the final status when the run finishes. */
  onDone?: (status: string) => void;
  /** When known (e.g. the last successful run's raw size), the progress bar shows a percentage. */
  expectedBytes?: number | null;
  /** Height of the log area in px. */
  height?: number;
}

type Action = { kind: 'event'; data: string } | { kind: 'reset' } | { kind: 'error'; error: unknown };
interface State extends LiveLogState {
  error: unknown;
}

function reducer(state: State, action: Action): State {
  if (action.kind === 'reset') return { ...initialLiveLog, error: null };
  if (action.kind === 'error') return { ...state, error: action.error };
  const e = parseLogEvent(action.data);
  return e ? { ...applyLogEvent(state, e), error: null } : state;
}

const LEVEL_COLOUR: Record<string, string | undefined> = { warn: 'orange', error: 'red' };

/**
 * A run's log as it happens: lines as they arrive (autoscrolling unless the reader scrolled up),
 * a progress bar while running, and the final status. Reconnects if the stream drops before the end.
 */
export function LiveLog({ path, onDone, expectedBytes, height = 320 }: LiveLogProps) {
  const { t } = useTranslation('tasks');
  const [state, dispatch] = useReducer(reducer, { ...initialLiveLog, error: null });
  const viewport = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const doneRef = useRef(onDone);
  doneRef.current = onDone;

  useEffect(() => {
    dispatch({ kind: 'reset' });
    const controller = new AbortController();
    let finished = false;
    const run = async (attempt: number): Promise<void> => {
      try {
        await readEventStream(
          path,
          (m) => {
            if (m.event && m.event !== 'log') return;
            const e = parseLogEvent(m.data);
            if (e?.completed === true) {
              finished = true;
              doneRef.current?.(typeof e.status === 'string' ? e.status : 'unknown');
            }
            dispatch({ kind: 'event', data: m.data });
          },
          controller.signal,
        );
      } catch (err) {
        if (controller.signal.aborted) return;
        dispatch({ kind: 'error', error: err });
        // A 4xx (no such record, no access) will not get better; a dropped connection may.
        if (typeof err === 'object' && err && 'status' in err && typeof err.status === 'number' && err.status < 500)
          return;
      }
      if (!finished && !controller.signal.aborted && attempt < 20) {
        await new Promise((r) => setTimeout(r, Math.min(10_000, 1000 * 2 ** attempt)));
        if (!controller.signal.aborted) await run(attempt + 1);
      }
    };
    void run(0);
    return () => controller.abort();
  }, [path]);

  useEffect(() => {
    const el = viewport.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [state.lines.length]);

  const percent = progressPercent(state.progress, expectedBytes);
  return (
    <Stack gap="xs" data-testid="live-log" data-done={state.done ? 'true' : 'false'} data-status={state.status ?? ''}>
      <Group justify="space-between" wrap="wrap">
        <Group gap="xs">
          {!state.done && <Loader size="xs" aria-hidden />}
          <Text size="sm" fw={500}>
            {state.done ? t('liveLog.finished') : t('liveLog.running')}
          </Text>
          {state.status && <StatusBadge status={state.status} />}
        </Group>
        {state.progress && !state.done && (
          <Text size="xs" c="dimmed">
            {t('liveLog.progress', {
              read: formatBytes(state.progress.bytesRead),
              stored: formatBytes(state.progress.bytesStored),
              speed: formatBytes(state.progress.speedBps),
              elapsed: formatDuration(state.progress.elapsedSeconds),
            })}
          </Text>
        )}
      </Group>
      {!state.done && (
        <Progress
          value={percent ?? 100}
          striped
          animated={percent === null || percent < 100}
          aria-label={t('liveLog.progressLabel')}
          {...(percent === null ? {} : { 'aria-valuenow': percent })}
        />
      )}
      {state.error !== null && !state.done && <ErrorAlert error={state.error} />}
      <Paper withBorder p={0}>
        <ScrollArea
          h={height}
          viewportRef={viewport}
          type="auto"
          onScrollPositionChange={({ y }) => {
            const el = viewport.current;
            if (el) stick.current = y + el.clientHeight >= el.scrollHeight - 24;
          }}
        >
          <Box
            component="pre"
            m={0}
            p="xs"
            role="log"
            aria-live="polite"
            aria-label={t('liveLog.label')}
            style={{
              fontFamily: 'var(--mantine-font-family-monospace)',
              fontSize: 12,
              whiteSpace: 'pre-wrap',
              wordBreak: 'break-word',
            }}
          >
            {state.lines.length === 0 && (
              <Text span c="dimmed" size="xs">
                {t('liveLog.waiting')}
              </Text>
            )}
            {state.lines.map((l) => (
              <Text
                key={`${l.sequence}-${l.timestamp}`}
                span
                display="block"
                size="xs"
                ff="monospace"
                c={LEVEL_COLOUR[l.level]}
              >
                <Text span c="dimmed" size="xs" ff="monospace">
                  {l.timestamp.slice(11, 19)}{' '}
                </Text>
                {l.message}
              </Text>
            ))}
          </Box>
        </ScrollArea>
      </Paper>
    </Stack>
  );
}
