import { useEffect, useState } from 'react';
import { readEventStream } from '../../api/sse.ts';
import { applyLogEvent, initialLiveLog, parseLogEvent, type LogProgress } from '../../components/live-log-state.ts';

/**
 * The progress of one running record, from its log stream's `progress` events (the stream also
 * replays the stored lines, which this ignores). Stops when the stream ends or the row unmounts.
 */
export function useRunProgress(recordId: number, enabled: boolean): LogProgress | null {
  const [progress, setProgress] = useState<LogProgress | null>(null);
  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    let state = initialLiveLog;
    void readEventStream(`/api/backup/records/${recordId}/logs/stream`, (m) => {
      if (m.event && m.event !== 'log') return;
      const e = parseLogEvent(m.data);
      if (!e || (e.level !== 'progress' && e.completed !== true)) return;
      state = applyLogEvent(state, e);
      setProgress(state.progress);
    }, controller.signal).catch(() => undefined); // the bar stays indeterminate; the list poll shows the end
    return () => controller.abort();
  }, [recordId, enabled]);
  return progress;
}
