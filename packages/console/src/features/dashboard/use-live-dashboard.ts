import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { readEventStream } from '../../api/sse.ts';
import { DASHBOARD_KEY } from './dashboard-queries.ts';
import { debounce, refreshesDashboard } from './live-refresh.ts';

/**
 * Follows GET /api/events/stream while the dashboard is open: an event that changes its figures
 * (a run ending, a node going offline…) refetches the dashboard queries, once per burst. The
 * stream is reopened after a drop (with a growing pause), and the figures refetched then, since
 * events may have been missed meanwhile. Returns whether the stream is open.
 */
export function useLiveDashboard(): boolean {
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    const controller = new AbortController();
    const refresh = debounce(() => void queryClient.invalidateQueries({ queryKey: DASHBOARD_KEY }), 1_000);
    const run = async () => {
      for (let attempt = 0; !controller.signal.aborted; attempt++) {
        const since = Date.now();
        try {
          const opened = readEventStream(
            '/api/events/stream',
            (m) => {
              if (refreshesDashboard(m.event)) refresh.call();
            },
            controller.signal,
          );
          setConnected(true);
          if (attempt > 0) refresh.call();
          await opened;
        } catch {
          // dropped or refused: try again below
        }
        setConnected(false);
        if (controller.signal.aborted) return;
        // A stream that stayed open a while was healthy: the next drop starts the pauses over.
        if (Date.now() - since > 60_000) attempt = 0;
        await new Promise((r) => setTimeout(r, Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5))));
      }
    };
    void run();
    return () => {
      controller.abort();
      refresh.cancel();
    };
  }, [queryClient]);
  return connected;
}
