import { Anchor, Checkbox, Group, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconFile, IconFolder, IconLink } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatBytes } from '../../lib/time.ts';
import type { TreeNode } from './contents-tree.ts';
import type { CheckState } from './contents-selection.ts';

/** One folder's entries: folders open on click; with `selectable`, each has a checkbox. */
export function ContentsTable({
  nodes,
  selectable,
  stateOf,
  onCheck,
  onOpen,
}: {
  nodes: TreeNode[];
  selectable: boolean;
  stateOf: (path: string) => CheckState;
  onCheck: (path: string, on: boolean) => void;
  onOpen: (path: string) => void;
}) {
  const { t } = useTranslation('records');
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table verticalSpacing={4} highlightOnHover data-testid="contents-table">
        <Table.Thead>
          <Table.Tr>
            {selectable && (
              <Table.Th w={36}>
                <VisuallyHidden>{t('contents.selectColumn')}</VisuallyHidden>
              </Table.Th>
            )}
            <Table.Th>{t('contents.name')}</Table.Th>
            <Table.Th>{t('contents.size')}</Table.Th>
            <Table.Th>{t('contents.modified')}</Table.Th>
            <Table.Th>{t('contents.mode')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {nodes.map((n) => {
            const state = stateOf(n.path);
            const link = n.entry?.type === 'symlink';
            const Icon = n.isDir ? IconFolder : link ? IconLink : IconFile;
            return (
              <Table.Tr key={n.path} data-path={n.path}>
                {selectable && (
                  <Table.Td>
                    <Checkbox
                      aria-label={t('contents.select', { name: n.name })}
                      checked={state === 'checked'}
                      indeterminate={state === 'partial'}
                      onChange={() => onCheck(n.path, state !== 'checked')}
                    />
                  </Table.Td>
                )}
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Icon size={16} aria-hidden color={n.isDir ? 'var(--mantine-color-yellow-6)' : undefined} />
                    {n.isDir ? (
                      <Anchor
                        component="button"
                        type="button"
                        onClick={() => onOpen(n.path)}
                        aria-label={t('contents.open', { name: n.name })}
                        size="sm"
                      >
                        {n.name}
                      </Anchor>
                    ) : (
                      <Text size="sm">
                        {n.name}
                        {link && (
                          <Text span c="dimmed" size="xs">
                            {' '}
                            ({t('contents.link')})
                          </Text>
                        )}
                      </Text>
                    )}
                    {n.isDir && !n.entry && (
                      <Text span size="xs" c="dimmed">
                        · {t('contents.implied')}
                      </Text>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{formatBytes(n.size)}</Text>
                  {n.isDir && (
                    <Text size="xs" c="dimmed">
                      {t('contents.items', { files: n.files })}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{n.entry ? <RelativeTime value={n.entry.mtime} /> : '—'}</Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace">
                    {n.entry ? (n.entry.mode & 0o7777).toString(8).padStart(4, '0') : '—'}
                  </Text>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
