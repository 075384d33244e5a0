import { useQuery } from '@tanstack/react-query';
import { nodeListQuery, targetListQuery, taskListQuery } from '../../api/shared-lists.ts';

/** Tasks, nodes and storage targets as select options (filters, replication target picker). */
export function useTaskOptions() {
  return useQuery({ ...taskListQuery, select: (tasks) => tasks.map((t) => ({ value: String(t.id), label: t.name })) });
}

export function useNodeOptions() {
  return useQuery(nodeListQuery);
}

export function useStorageTargets() {
  return useQuery(targetListQuery);
}
