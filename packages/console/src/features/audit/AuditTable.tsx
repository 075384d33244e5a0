import { Anchor, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import type { AuditEntry } from './AuditEntryDrawer.tsx';

/** One page of entries; a row's time opens its detail (a link, so keyboards reach it too). */
export function AuditTable({ items, onOpen }: { items: AuditEntry[]; onOpen: (entry: AuditEntry) => void }) {
  const { t } = useTranslation('audit');
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table striped highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('columns.time')}</Table.Th>
            <Table.Th>{t('columns.user')}</Table.Th>
            <Table.Th>{t('columns.category')}</Table.Th>
            <Table.Th>{t('columns.action')}</Table.Th>
            <Table.Th>{t('columns.target')}</Table.Th>
            <Table.Th>{t('columns.detail')}</Table.Th>
            <Table.Th>{t('columns.clientIp')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((e) => (
            <Table.Tr key={e.id} onClick={() => onOpen(e)} style={{ cursor: 'pointer' }}>
              <Table.Td>
                <Anchor
                  component="button"
                  type="button"
                  aria-label={t('open', { id: e.id })}
                  onClick={(ev) => {
                    ev.stopPropagation();
                    onOpen(e);
                  }}
                >
                  <RelativeTime value={e.createdAt} />
                </Anchor>
              </Table.Td>
              <Table.Td>{e.username || '—'}</Table.Td>
              <Table.Td>{e.category}</Table.Td>
              <Table.Td>{e.action}</Table.Td>
              <Table.Td>
                <Text size="sm">{e.targetName || e.targetId || '—'}</Text>
                {e.targetType && (
                  <Text size="xs" c="dimmed">
                    {e.targetType}
                    {e.targetId ? ` #${e.targetId}` : ''}
                  </Text>
                )}
              </Table.Td>
              <Table.Td maw={360}>
                <Text size="sm" lineClamp={2}>
                  {e.detail}
                </Text>
              </Table.Td>
              <Table.Td>{e.clientIp}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
