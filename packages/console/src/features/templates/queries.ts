import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, unwrapPage } from '../../api/client.ts';

export const templatesQuery = queryOptions({
  queryKey: ['templates', 'list'],
  queryFn: () => unwrapPage(api.GET('/api/task-templates', { params: { query: { offset: 0 } } })),
});

export const templateQuery = (id: number) => queryOptions({
  queryKey: ['templates', 'detail', id],
  queryFn: () => unwrap(api.GET('/api/task-templates/{id}', { params: { path: { id } } })),
});

/** The names behind the ids a template holds (targets, tasks, nodes) and the task types the server runs. */
export const targetsQuery = queryOptions({
  queryKey: ['templates', 'ref', 'targets'],
  queryFn: () => unwrap(api.GET('/api/storage-targets', { params: { query: { limit: 1000, offset: 0 } } })),
  staleTime: 60_000,
});

export const tasksQuery = queryOptions({
  queryKey: ['templates', 'ref', 'tasks'],
  queryFn: () => unwrap(api.GET('/api/backup/tasks', { params: { query: { offset: 0 } } })),
  staleTime: 60_000,
});

export const nodesQuery = queryOptions({
  queryKey: ['templates', 'ref', 'nodes'],
  queryFn: () => unwrap(api.GET('/api/nodes', { params: { query: { limit: 1000, offset: 0 } } })),
  staleTime: 60_000,
});

/**
 * `file` plus every installed database type (GET /api/database/types): what a task's `type` may be.
 * The same cache entry as the tasks pages' useDatabaseTypes, so the list is fetched once.
 */
export const taskTypesQuery = queryOptions({
  queryKey: ['database', 'types'],
  queryFn: () => unwrap(api.GET('/api/database/types')),
  staleTime: 300_000,
  select: (types) => [{ value: 'file', label: 'file' }, ...types.map((x) => ({ value: x.type, label: x.displayName }))],
});
