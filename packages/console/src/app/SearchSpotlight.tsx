import { useState } from 'react';
import { Spotlight, type SpotlightActionGroupData } from '@mantine/spotlight';
import { IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useDebouncedValue } from '@mantine/hooks';
import { api, unwrap } from '../api/client.ts';

/** Where each kind of search hit opens in the console. */
const PAGE: Record<string, string> = {
  task: '/tasks',
  record: '/records',
  storage: '/targets',
  node: '/nodes',
  template: '/templates',
  notification: '/notifications',
};

/** Keyboard search over the search route: `/` or Ctrl+K opens it anywhere. */
export function SearchSpotlight() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const [debounced] = useDebouncedValue(query.trim(), 200);
  const result = useQuery({
    queryKey: ['search', debounced],
    enabled: debounced.length > 0,
    queryFn: () => unwrap(api.GET('/api/search', { params: { query: { q: debounced, limit: 8 } } })),
  });
  const data = result.data;
  const groups: SpotlightActionGroupData[] = data
    ? (['tasks', 'records', 'storage', 'nodes', 'templates', 'notifications'] as const)
        .filter((g) => data[g].length > 0)
        .map((g) => ({
          group: g,
          actions: data[g].map((item) => ({
            id: `${item.kind}-${item.id}`,
            label: item.title,
            description: item.subtitle,
            onClick: () => void navigate(`${PAGE[item.kind] ?? '/'}/${item.id}`),
          })),
        }))
    : [];
  return (
    <Spotlight
      actions={groups}
      query={query}
      onQueryChange={setQuery}
      shortcut={['mod + K', '/']}
      filter={(_q, actions) => actions}
      nothingFound={debounced ? t('search.nothing') : t('search.shortcut')}
      highlightQuery
      searchProps={{
        leftSection: <IconSearch size={18} />,
        placeholder: t('search.placeholder'),
        'aria-label': t('actions.search'),
      }}
    />
  );
}
