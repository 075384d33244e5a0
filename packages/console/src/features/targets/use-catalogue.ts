import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.ts';
import type { ResponseData } from '../../api/types.ts';
import { buildCatalogue, type CatalogueOption, type CatalogueType } from './target-catalogue.ts';

type Backends = ResponseData<'/api/storage-targets/rclone/backends', 'get'>;
// The route's option shape is the catalogue's: a change of the API breaks the build here.
const _sameShape: (o: Backends[number]['options'][number]) => CatalogueOption = (o) => o;
void _sameShape;

/**
 * The storage types the form offers: the plugin types and the installed rclone's backends. A
 * failing backends route still leaves the plugin types (`rcloneError` says why the rest is missing).
 */
export function useCatalogue(): { types: CatalogueType[] | undefined; rcloneError: unknown; isPending: boolean } {
  const backends = useQuery({
    queryKey: ['storage-targets', 'rclone-backends'],
    queryFn: () => unwrap(api.GET('/api/storage-targets/rclone/backends')),
    staleTime: 10 * 60_000,
  });
  if (backends.isPending) return { types: undefined, rcloneError: null, isPending: true };
  return { types: buildCatalogue(backends.data ?? []), rcloneError: backends.error, isPending: false };
}
