import { api, unwrap } from '../../api/client.ts';

/** Query keys and fetchers of the targets pages, so that mutations invalidate the same keys. */
export const targetKeys = {
  all: ['storage-targets'] as const,
  list: ['storage-targets', 'list'] as const,
  detail: (id: number) => ['storage-targets', 'detail', id] as const,
  usage: (id: number) => ['storage-targets', 'usage', id] as const,
};

export const fetchTarget = (id: number) => unwrap(api.GET('/api/storage-targets/{id}', { params: { path: { id } } }));
export const fetchUsage = (id: number) =>
  unwrap(api.GET('/api/storage-targets/{id}/usage', { params: { path: { id } } }));
