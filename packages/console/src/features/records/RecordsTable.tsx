import { Anchor, Checkbox, Group, Table, Text, Tooltip } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatBytes, formatDuration } from '../../lib/time.ts';
import type { ResponseData } from '../../api/types.ts';
import { RunStatus } from './RunStatus.tsx';
import { isActive } from './run-state.ts';
import { useNodeName } from './use-node-name.ts';

type Record = ResponseData<'/api/backup/records', 'get'>[number];

/** The backup records table; with `selectable`, rows get checkboxes for batch deletion (running ones cannot be deleted). */
export function RecordsTable({
  records,
  selectable,
  selected,
  onSelect,
}: {
  records: Record[];
  selectable: boolean;
  selected: number[];
  onSelect: (ids: number[]) => void;
}) {
  const { t } = useTranslation('records');
  const nodeName = useNodeName();
  const deletable = records.filter((r) => !isActive(r.state) && !r.locked).map((r) => r.id);
  const allOn = deletable.length > 0 && deletable.every((id) => selected.includes(id));
  const toggle = (id: number, on: boolean) => onSelect(on ? [...selected, id] : selected.filter((x) => x !== id));
  return (
    <Table.ScrollContainer minWidth={860}>
      <Table striped highlightOnHover verticalSpacing="xs" data-testid="records-table">
        <Table.Thead>
          <Table.Tr>
            {selectable && (
              <Table.Th w={36}>
                <Checkbox
                  aria-label={t('list.selectPage')}
                  checked={allOn}
                  indeterminate={!allOn && selected.length > 0}
                  disabled={deletable.length === 0}
                  onChange={(e) => onSelect(e.currentTarget.checked ? deletable : [])}
                />
              </Table.Th>
            )}
            <Table.Th>{t('col.id')}</Table.Th>
            <Table.Th>{t('col.task')}</Table.Th>
            <Table.Th>{t('col.status')}</Table.Th>
            <Table.Th>{t('col.size')}</Table.Th>
            <Table.Th>{t('col.duration')}</Table.Th>
            <Table.Th>{t('col.started')}</Table.Th>
            <Table.Th>{t('col.target')}</Table.Th>
            <Table.Th>{t('col.node')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {records.map((r) => (
            <Table.Tr key={r.id} data-record-id={r.id}>
              {selectable && (
                <Table.Td>
                  <Checkbox
                    aria-label={t('list.selectRow', { id: r.id })}
                    checked={selected.includes(r.id)}
                    disabled={!deletable.includes(r.id)}
                    onChange={(e) => toggle(r.id, e.currentTarget.checked)}
                  />
                </Table.Td>
              )}
              <Table.Td>
                <Anchor component={Link} to={`/records/${r.id}`}>
                  #{r.id}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <Anchor component={Link} to={`/records/${r.id}`} fw={500}>
                  {r.taskName}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {r.type} · {r.trigger}
                </Text>
              </Table.Td>
              <Table.Td>
                <RunStatus state={r.state} locked={r.locked} progress={r.progress} />
              </Table.Td>
              <Table.Td>
                <Tooltip label={t('detail.rawSize') + ': ' + formatBytes(r.rawSize)} disabled={!r.rawSize}>
                  <Text size="sm" span>
                    {r.fileSize ? formatBytes(r.fileSize) : '—'}
                  </Text>
                </Tooltip>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{isActive(r.state) ? '—' : formatDuration(r.durationSeconds)}</Text>
              </Table.Td>
              <Table.Td>
                <RelativeTime value={r.startedAt ?? r.queuedAt} />
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  <Text size="sm">{r.storageTargetName || '—'}</Text>
                </Group>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{nodeName(r.nodeId)}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
