import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from './client.ts';

/**
 * Lists several areas read (pickers, filters, names behind ids), each cached once under the key
 * its own area invalidates after a change (targets: ['storage-targets'], nodes: ['nodes'],
 * tasks: ['tasks']). Pages that need other shapes pass `select`.
 */
export const targetListQuery = queryOptions({
  queryKey: ['storage-targets', 'list'],
  queryFn: () => unwrap(api.GET('/api/storage-targets', { params: { query: { limit: 1000, offset: 0 } } })),
  staleTime: 30_000,
});

export const nodeListQuery = queryOptions({
  queryKey: ['nodes', 'list'],
  queryFn: () => unwrap(api.GET('/api/nodes', { params: { query: { limit: 1000, offset: 0 } } })),
  staleTime: 30_000,
});

/** Every task (the list route answers them all without a limit). */
export const taskListQuery = queryOptions({
  queryKey: ['tasks', 'all'],
  queryFn: () => unwrap(api.GET('/api/backup/tasks', { params: { query: { offset: 0 } } })),
  staleTime: 30_000,
});

/** The database drivers the master has, with the task fields each reads. */
export const databaseTypesQuery = queryOptions({
  queryKey: ['database', 'types'],
  queryFn: () => unwrap(api.GET('/api/database/types')),
  staleTime: 300_000,
});
