import { useQuery } from '@tanstack/react-query';
import { api, unwrap, unwrapPage } from '../../api/client.ts';

/** Every dashboard query lives under this key: a run's outcome refreshes them all at once. */
export const DASHBOARD_KEY = ['dashboard'] as const;

export function useStats() {
  return useQuery({ queryKey: [...DASHBOARD_KEY, 'stats'], queryFn: () => unwrap(api.GET('/api/dashboard/stats')) });
}

export function useTimeline(days: number) {
  return useQuery({
    queryKey: [...DASHBOARD_KEY, 'timeline', days],
    queryFn: () => unwrap(api.GET('/api/dashboard/timeline', { params: { query: { days } } })),
  });
}

export function useSla() {
  return useQuery({ queryKey: [...DASHBOARD_KEY, 'sla'], queryFn: () => unwrap(api.GET('/api/dashboard/sla')) });
}

export function useCluster() {
  return useQuery({
    queryKey: [...DASHBOARD_KEY, 'cluster'],
    queryFn: () => unwrap(api.GET('/api/dashboard/cluster')),
  });
}

export function useBreakdown(days: number) {
  return useQuery({
    queryKey: [...DASHBOARD_KEY, 'breakdown', days],
    queryFn: () => unwrap(api.GET('/api/dashboard/breakdown', { params: { query: { days } } })),
  });
}

export function useNodePerformance(days: number) {
  return useQuery({
    queryKey: [...DASHBOARD_KEY, 'node-performance', days],
    queryFn: () => unwrap(api.GET('/api/dashboard/node-performance', { params: { query: { days } } })),
  });
}

/** How many storage targets exist (the first step of the getting-started checklist). */
export function useTargetCount() {
  return useQuery({
    queryKey: [...DASHBOARD_KEY, 'target-count'],
    queryFn: async () =>
      (await unwrapPage(api.GET('/api/storage-targets', { params: { query: { limit: 1, offset: 0 } } }))).total,
  });
}

/**
 * Runs queued or running. No event announces a run's start, so this list is polled: often while
 * something runs, slowly otherwise; a run's end also refreshes it through the event stream.
 */
export function useRunningRecords() {
  return useQuery({
    queryKey: [...DASHBOARD_KEY, 'running'],
    queryFn: () =>
      unwrapPage(api.GET('/api/backup/records', { params: { query: { status: 'running', limit: 20, offset: 0 } } })),
    refetchInterval: (q) => ((q.state.data?.items.length ?? 0) > 0 ? 5_000 : 15_000),
  });
}
