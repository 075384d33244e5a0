import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.ts';

/** Tasks, nodes and storage targets as select options (filters, replication target picker). */
export function useTaskOptions() {
  return useQuery({
    queryKey: ['backup-tasks', 'options'],
    queryFn: () => unwrap(api.GET('/api/backup/tasks', { params: { query: { limit: 1000, offset: 0 } } })),
    select: (tasks) => tasks.map((t) => ({ value: String(t.id), label: t.name })),
    staleTime: 60_000,
  });
}

export function useNodeOptions() {
  return useQuery({
    queryKey: ['nodes', 'options'],
    queryFn: () => unwrap(api.GET('/api/nodes', { params: { query: { limit: 1000, offset: 0 } } })),
    staleTime: 60_000,
  });
}

export function useStorageTargets() {
  return useQuery({
    queryKey: ['storage-targets', 'options'],
    queryFn: () => unwrap(api.GET('/api/storage-targets', { params: { query: { limit: 1000, offset: 0 } } })),
    staleTime: 60_000,
  });
}
