import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.ts';
import type { ResponseData } from '../../api/types.ts';
import { buildCatalogue, type CatalogueType, type ServedType } from './target-catalogue.ts';

type Served = ResponseData<'/api/storage-targets/types', 'get'>;
// The route's shape is the catalogue's: a change of the API breaks the build here.
const _sameShape: (t: Served[number]) => ServedType = (t) => t;
void _sameShape;

/** The storage types the form offers: every type the server's plugins register, with its fields. */
export function useCatalogue(): { types: CatalogueType[] | undefined; error: unknown; isPending: boolean } {
  const served = useQuery({
    queryKey: ['storage-targets', 'types'],
    queryFn: () => unwrap(api.GET('/api/storage-targets/types')),
    staleTime: 10 * 60_000,
  });
  if (served.isPending) return { types: undefined, error: null, isPending: true };
  return { types: served.data ? buildCatalogue(served.data) : undefined, error: served.error, isPending: false };
}
