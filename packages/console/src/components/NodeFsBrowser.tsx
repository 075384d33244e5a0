import { useState } from 'react';
import {
  ActionIcon,
  Anchor,
  Breadcrumbs,
  Button,
  Checkbox,
  Group,
  Radio,
  ScrollArea,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { IconArrowUp, IconFile, IconFolder } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrapPage } from '../api/client.ts';
import { ErrorAlert } from './ErrorAlert.tsx';
import { formatBytes } from '../lib/time.ts';
import { breadcrumbs, normalisePath, parentPath, togglePath } from '../lib/fs-path.ts';
import { RelativeTime } from './RelativeTime.tsx';

export interface NodeFsBrowserProps {
  /** The node to browse (the master is a node too: the one with `isLocal`). */
  nodeId: number;
  /** Picking mode: called with the chosen absolute paths. Without it the browser only browses. */
  onPick?: (paths: string[]) => void;
  /** Allow several paths (default: one). */
  multiple?: boolean;
  /** Allow picking files, not only folders (default: folders only). */
  files?: boolean;
  /** Where to start (default `/`). */
  initialPath?: string;
  /** Label of the pick button (default "Use selected"). */
  pickLabel?: string;
  /** Height of the listing in px. */
  height?: number;
}

/**
 * A node's filesystem over GET /api/nodes/{id}/fs/list: open folders, go up, type a path, and
 * (with `onPick`) choose one or several paths. Operators only on the server side.
 */
export function NodeFsBrowser({
  nodeId,
  onPick,
  multiple = false,
  files = false,
  initialPath = '/',
  pickLabel,
  height = 360,
}: NodeFsBrowserProps) {
  const { t } = useTranslation('tasks');
  const [path, setPath] = useState(normalisePath(initialPath) ?? '/');
  const [typed, setTyped] = useState(path);
  const [selected, setSelected] = useState<string[]>([]);
  const listing = useQuery({
    queryKey: ['node-fs', nodeId, path],
    queryFn: () =>
      unwrapPage(api.GET('/api/nodes/{id}/fs/list', { params: { path: { id: nodeId }, query: { path } } })),
    staleTime: 10_000,
  });
  const open = (p: string) => {
    setPath(p);
    setTyped(p);
  };
  const picking = onPick !== undefined;
  const pickable = (isDir: boolean) => picking && (isDir || files);
  const entries = [...(listing.data?.items ?? [])].sort(
    (a, b) => Number(b.isDir) - Number(a.isDir) || a.name.localeCompare(b.name),
  );

  return (
    <Stack gap="xs" data-testid="node-fs-browser">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const p = normalisePath(typed);
          if (p) open(p);
        }}
      >
        <Group gap="xs" wrap="nowrap" align="flex-end">
          <Tooltip label={t('fs.up')}>
            <ActionIcon
              variant="default"
              size="lg"
              onClick={() => open(parentPath(path))}
              disabled={path === '/'}
              aria-label={t('fs.up')}
            >
              <IconArrowUp size={16} />
            </ActionIcon>
          </Tooltip>
          <TextInput
            style={{ flex: 1 }}
            label={t('fs.path')}
            value={typed}
            onChange={(e) => setTyped(e.currentTarget.value)}
            error={typed.trim() !== '' && !normalisePath(typed) ? t('fs.absolute') : undefined}
          />
          <Button type="submit" variant="default">
            {t('fs.go')}
          </Button>
        </Group>
      </form>
      <Breadcrumbs separator="/" separatorMargin={4}>
        {breadcrumbs(path).map((c) => (
          <Anchor key={c.path} component="button" type="button" size="sm" onClick={() => open(c.path)}>
            {c.name === '/' ? t('fs.root') : c.name}
          </Anchor>
        ))}
      </Breadcrumbs>
      {picking && (
        <Group gap="xs">
          <Button size="xs" variant="light" onClick={() => setSelected((s) => togglePath(s, path, multiple))}>
            {selected.includes(path) ? t('fs.unselectThis') : t('fs.selectThis')}
          </Button>
        </Group>
      )}
      {listing.isError && <ErrorAlert error={listing.error} />}
      <ScrollArea h={height} type="auto">
        <Table highlightOnHover stickyHeader>
          <Table.Thead>
            <Table.Tr>
              {picking && (
                <Table.Th w={40}>
                  <VisuallyHidden>{t('fs.select')}</VisuallyHidden>
                </Table.Th>
              )}
              <Table.Th>{t('fs.name')}</Table.Th>
              <Table.Th>{t('fs.size')}</Table.Th>
              <Table.Th visibleFrom="sm">{t('fs.modified')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {listing.isPending && (
              <Table.Tr>
                <Table.Td colSpan={4}>
                  <Text size="sm" c="dimmed">
                    {t('fs.loading')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {listing.isSuccess && entries.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={4}>
                  <Text size="sm" c="dimmed">
                    {t('fs.empty')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {entries.map((e) => (
              <Table.Tr key={e.path}>
                {picking && (
                  <Table.Td>
                    {pickable(e.isDir) &&
                      (multiple ? (
                        <Checkbox
                          aria-label={t('fs.selectPath', { path: e.path })}
                          checked={selected.includes(e.path)}
                          onChange={() => setSelected((s) => togglePath(s, e.path, true))}
                        />
                      ) : (
                        <Radio
                          aria-label={t('fs.selectPath', { path: e.path })}
                          checked={selected.includes(e.path)}
                          onChange={() => setSelected((s) => togglePath(s, e.path, false))}
                        />
                      ))}
                  </Table.Td>
                )}
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    {e.isDir ? <IconFolder size={16} aria-hidden /> : <IconFile size={16} aria-hidden />}
                    {e.isDir ? (
                      <Anchor component="button" type="button" size="sm" onClick={() => open(e.path)}>
                        {e.name}
                      </Anchor>
                    ) : (
                      <Text size="sm">{e.name}</Text>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{e.isDir ? '' : formatBytes(e.size)}</Text>
                </Table.Td>
                <Table.Td visibleFrom="sm">
                  <RelativeTime value={e.modifiedAt} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      {listing.isSuccess && listing.data.total > listing.data.items.length && (
        <Text size="xs" c="dimmed">
          {t('fs.truncated', { shown: listing.data.items.length, total: listing.data.total })}
        </Text>
      )}
      {picking && (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            {selected.length ? selected.join(', ') : t('fs.nothingSelected')}
          </Text>
          <Button onClick={() => onPick(selected)} disabled={selected.length === 0}>
            {pickLabel ?? t('fs.pick', { count: selected.length })}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
