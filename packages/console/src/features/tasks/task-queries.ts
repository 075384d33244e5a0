import { useQuery } from '@tanstack/react-query';
import { api, unwrap, unwrapPage } from '../../api/client.ts';
import { databaseTypesQuery, nodeListQuery, targetListQuery } from '../../api/shared-lists.ts';
import type { DriverInfo } from './task-form-model.ts';

/** Query keys of the tasks pages (invalidate ['tasks'] after any task change). */
export const taskKeys = {
  all: ['tasks'] as const,
  list: () => ['tasks', 'list'] as const,
  tags: () => ['tasks', 'tags'] as const,
  detail: (id: number) => ['tasks', 'detail', id] as const,
  records: (id: number) => ['records', 'by-task', id] as const,
};

export function useTaskList() {
  return useQuery({
    queryKey: taskKeys.list(),
    queryFn: () => unwrapPage(api.GET('/api/backup/tasks', { params: { query: { offset: 0 } } })),
    refetchInterval: 15_000,
  });
}

export function useTaskTags() {
  return useQuery({ queryKey: taskKeys.tags(), queryFn: () => unwrap(api.GET('/api/backup/tasks/tags')) });
}

export function useTask(id: number) {
  return useQuery({
    queryKey: taskKeys.detail(id),
    queryFn: () => unwrap(api.GET('/api/backup/tasks/{id}', { params: { path: { id } } })),
  });
}

export function useStorageTargets() {
  return useQuery(targetListQuery);
}

export function useNodes() {
  return useQuery(nodeListQuery);
}

/** The task's records, newest first (the API's page limit is 500). */
export function useTaskRecords(taskId: number, limit = 500) {
  return useQuery({
    queryKey: [...taskKeys.records(taskId), limit],
    enabled: taskId > 0,
    queryFn: () => unwrapPage(api.GET('/api/backup/records', { params: { query: { taskId, limit, offset: 0 } } })),
  });
}

/** The database drivers the master has, with the task fields each reads (GET /api/database/types). */
export function useDatabaseTypes(): DriverInfo[] {
  const drivers = useQuery(databaseTypesQuery);
  return drivers.data ?? NO_DRIVERS;
}
const NO_DRIVERS: DriverInfo[] = [];

/** Task types: `file` plus every database driver the master has. */
export function useTaskTypes() {
  return useQuery({ ...databaseTypesQuery, select: (drivers) => ['file', ...drivers.map((d) => d.type)] });
}

/** The zone the master reads schedules in (the `timezone` setting, else its own); the browser's until known. */
export function useScheduleZone(): string {
  const info = useQuery({
    queryKey: ['system', 'info'],
    queryFn: () => unwrap(api.GET('/api/system/info')),
    staleTime: 300_000,
  });
  return info.data?.scheduleTimeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}
