import { api, unwrap } from '../../api/client.ts';
import { apiErrorOf } from '../../api/api-error.ts';
import type { QueryParams, ResponseData } from '../../api/types.ts';

export type NodeView = ResponseData<'/api/nodes/{id}', 'get'>;
export type InstallerOptions = Omit<QueryParams<'/api/nodes/{id}/install-script-preview', 'get'>, 'format'>;

/** Query keys and fetchers of the nodes pages, so that mutations invalidate the same keys. */
export const nodeKeys = {
  all: ['nodes'] as const,
  list: ['nodes', 'list'] as const,
  detail: (id: number) => ['nodes', 'detail', id] as const,
  preview: (id: number, format: string, options: InstallerOptions) =>
    ['nodes', 'install-preview', id, format, options] as const,
};

export const fetchNode = (id: number) => unwrap(api.GET('/api/nodes/{id}', { params: { path: { id } } }));

/** The installer script (or compose file) a node's installers serve, as text: the route answers no JSON envelope. */
export async function fetchInstallPreview(
  id: number,
  format: 'script' | 'compose',
  options: InstallerOptions,
): Promise<string> {
  const { data, error, response } = await api.GET('/api/nodes/{id}/install-script-preview', {
    params: { path: { id }, query: { ...options, format } },
    parseAs: 'text',
  });
  if (!response.ok || typeof data !== 'string') throw apiErrorOf(response.status, error);
  return data;
}
