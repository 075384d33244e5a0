import type { ReactNode } from 'react';
import { Code, Drawer, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ResponseData } from '../../api/types.ts';
import { RelativeTime } from '../../components/RelativeTime.tsx';

export type AuditEntry = ResponseData<'/api/audit-logs', 'get'>['items'][number];

/** Every field of one audit entry, the detail in full. */
export function AuditEntryDrawer({ entry, onClose }: { entry: AuditEntry | null; onClose: () => void }) {
  const { t } = useTranslation('audit');
  const rows: [string, ReactNode][] = entry
    ? [
        [
          t('drawer.time'),
          <Stack gap={0} key="t">
            <RelativeTime value={entry.createdAt} />
            <Text size="xs" c="dimmed">
              {entry.createdAt}
            </Text>
          </Stack>,
        ],
        [t('drawer.user'), entry.username || t('drawer.system')],
        [t('drawer.userId'), entry.userId ?? '—'],
        [t('drawer.category'), entry.category],
        [t('drawer.action'), entry.action],
        [t('drawer.targetType'), entry.targetType || '—'],
        [t('drawer.targetId'), entry.targetId || '—'],
        [t('drawer.targetName'), entry.targetName || '—'],
        [t('drawer.clientIp'), entry.clientIp || '—'],
      ]
    : [];
  return (
    <Drawer
      opened={entry !== null}
      onClose={onClose}
      position="right"
      size="md"
      title={entry ? t('drawer.title', { id: entry.id }) : ''}
    >
      {entry && (
        <Stack>
          <Table withRowBorders={false} variant="vertical">
            <Table.Tbody>
              {rows.map(([label, value]) => (
                <Table.Tr key={label}>
                  <Table.Th w={140}>{label}</Table.Th>
                  <Table.Td>{value}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Text fw={600} size="sm">
            {t('drawer.detail')}
          </Text>
          <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
            {entry.detail || '—'}
          </Code>
        </Stack>
      )}
    </Drawer>
  );
}
