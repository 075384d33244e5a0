import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, unwrapPage } from '../../api/client.ts';
import { databaseTypesQuery } from '../../api/shared-lists.ts';

export const templatesQuery = queryOptions({
  queryKey: ['templates', 'list'],
  queryFn: () => unwrapPage(api.GET('/api/task-templates', { params: { query: { offset: 0 } } })),
});

export const templateQuery = (id: number) =>
  queryOptions({
    queryKey: ['templates', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/task-templates/{id}', { params: { path: { id } } })),
  });

/** The names behind the ids a template holds (targets, tasks, nodes) and the task types the server runs. */
export {
  targetListQuery as targetsQuery,
  taskListQuery as tasksQuery,
  nodeListQuery as nodesQuery,
} from '../../api/shared-lists.ts';

/** `file` plus every installed database type (GET /api/database/types): what a task's `type` may be. */
export const taskTypesQuery = queryOptions({
  ...databaseTypesQuery,
  select: (types) => [{ value: 'file', label: 'file' }, ...types.map((x) => ({ value: x.type, label: x.displayName }))],
});
