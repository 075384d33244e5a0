import { useMemo, useState } from 'react';
import { Alert, Anchor, Breadcrumbs, Button, Group, Paper, Text, TextInput, Title } from '@mantine/core';
import { IconRestore, IconSearch } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { QueryState } from '../../components/QueryState.tsx';
import { buildTree, breadcrumbs, findNode, firstInterestingFolder } from './contents-tree.ts';
import { checkState, restorePaths, setChecked } from './contents-selection.ts';
import { ContentsTable } from './ContentsTable.tsx';
import { RestoreDialog, type RestoreSource } from './RestoreDialog.tsx';

const LIMIT = 10_000;
const ROWS = 500;

/**
 * A file record's contents as folders to walk through, with checkboxes for a selective restore.
 * The listing comes whole (up to 10 000 entries); when the API says it was cut short, opening a
 * folder asks again for just that folder (`prefix`).
 */
export function ContentsBrowser({ source, canRestore }: { source: RestoreSource; canRestore: boolean }) {
  const { t } = useTranslation('records');
  const [loaded, setLoaded] = useState('');
  const [folder, setFolder] = useState<string | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [filter, setFilter] = useState('');
  const [restoring, setRestoring] = useState<string[] | null>(null);
  const listing = useQuery({
    queryKey: ['backup-records', source.id, 'contents', loaded],
    queryFn: () =>
      unwrap(
        api.GET('/api/backup/records/{id}/contents', {
          params: {
            path: { id: source.id },
            query: { limit: LIMIT, offset: 0, ...(loaded ? { prefix: loaded } : {}) },
          },
        }),
      ),
    placeholderData: keepPreviousData,
    staleTime: Infinity,
  });
  const tree = useMemo(() => buildTree(listing.data?.entries ?? []), [listing.data]);
  const here = folder ?? firstInterestingFolder(tree);
  const node = findNode(tree, here) ?? tree;
  const open = (path: string) => {
    setFolder(path);
    setFilter('');
    // A cut-short listing may lack what is in this folder: ask for it alone.
    if (listing.data?.truncated || (loaded && !(path === loaded || path.startsWith(`${loaded}/`)))) setLoaded(path);
  };
  const childrenOf = (p: string) => findNode(tree, p)?.children.map((c) => c.path) ?? [];
  const needle = filter.trim().toLowerCase();
  const shown = node.children.filter((c) => !needle || c.name.toLowerCase().includes(needle));
  const paths = restorePaths(selected);
  return (
    <Paper withBorder p="md" mt="lg" data-testid="contents-browser">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <div>
          <Title order={2} size="h4">
            {t('contents.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('contents.hint')}
          </Text>
        </div>
        {canRestore && (
          <Group gap="xs">
            {paths.length > 0 && (
              <Button variant="subtle" onClick={() => setSelected(new Set())}>
                {t('contents.clearSelection')}
              </Button>
            )}
            <Button variant="default" leftSection={<IconRestore size={16} />} onClick={() => setRestoring([])}>
              {t('actions.restoreAll')}
            </Button>
            <Button
              leftSection={<IconRestore size={16} />}
              disabled={paths.length === 0}
              onClick={() => setRestoring(paths)}
            >
              {t('actions.restoreSelected', { count: paths.length })}
            </Button>
          </Group>
        )}
      </Group>
      <QueryState query={listing}>
        {(data) => (
          <>
            <Group justify="space-between" wrap="wrap" mb="xs">
              <Breadcrumbs separatorMargin={4} style={{ flexWrap: 'wrap' }} aria-label={t('contents.title')}>
                {breadcrumbs(here).map((b) => (
                  <Anchor
                    key={b.path}
                    component="button"
                    type="button"
                    size="sm"
                    onClick={() => open(b.path)}
                    aria-current={b.path === here ? 'location' : undefined}
                  >
                    {b.path === '' ? t('contents.root') : b.name}
                  </Anchor>
                ))}
              </Breadcrumbs>
              <TextInput
                size="xs"
                leftSection={<IconSearch size={14} />}
                aria-label={t('contents.filter')}
                placeholder={t('contents.filter')}
                value={filter}
                onChange={(e) => setFilter(e.currentTarget.value)}
                w={{ base: '100%', xs: 220 }}
              />
            </Group>
            {data.truncated && (
              <Alert color="yellow" variant="light" mb="xs">
                {t('contents.truncated', { shown: data.entries.length, total: data.total })}
              </Alert>
            )}
            {shown.length === 0 ? (
              <Text size="sm" c="dimmed" py="md">
                {t('contents.empty')}
              </Text>
            ) : (
              <ContentsTable
                nodes={shown.slice(0, ROWS)}
                selectable={canRestore}
                stateOf={(p) => checkState(selected, p)}
                onCheck={(p, on) => setSelected((s) => setChecked(s, p, on, childrenOf))}
                onOpen={open}
              />
            )}
            {shown.length > ROWS && (
              <Text size="xs" c="dimmed" mt={4}>
                {t('contents.truncated', { shown: ROWS, total: shown.length })}
              </Text>
            )}
          </>
        )}
      </QueryState>
      {restoring && (
        <RestoreDialog source={source} selectedPaths={restoring} opened onClose={() => setRestoring(null)} />
      )}
    </Paper>
  );
}
