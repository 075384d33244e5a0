import { useSearchParams } from 'react-router';
import { filtersFromSearch, filtersToSearch, type ListFilters } from './list-filters.ts';

/** A list's filters and page, read from and written to the address (so filtered lists can be linked to). */
export function useListFilters(): [ListFilters, (patch: Partial<ListFilters>) => void] {
  const [params, setParams] = useSearchParams();
  const filters = filtersFromSearch(params);
  // Any change of filter goes back to the first page; a page change passes its own page.
  const update = (patch: Partial<ListFilters>) =>
    setParams(filtersToSearch({ ...filters, page: 1, ...patch }), { replace: true });
  return [filters, update];
}
