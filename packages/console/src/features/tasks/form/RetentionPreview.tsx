import { Badge, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../../components/RelativeTime.tsx';
import { previewRetention, type PreviewRecord, type RetentionRule } from '../retention-preview.ts';

/** Which of the task's existing backups the rule being edited would keep or delete at its next run. */
export function RetentionPreview({
  records,
  rule,
  timeZone,
}: {
  records: PreviewRecord[];
  rule: RetentionRule;
  timeZone: string;
}) {
  const { t } = useTranslation('tasks');
  const rows = previewRetention(records, rule, new Date(), timeZone);
  if (rows.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {t('retention.noRecords')}
      </Text>
    );
  const deleted = rows.filter((r) => !r.keep).length;
  return (
    <div data-testid="retention-preview">
      <Text size="sm" mb={4}>
        {t('retention.summary', { keep: rows.length - deleted, remove: deleted })}
      </Text>
      <Table.ScrollContainer minWidth={420} mah={280}>
        <Table withRowBorders={false} verticalSpacing={2} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('retention.record')}</Table.Th>
              <Table.Th>{t('retention.finished')}</Table.Th>
              <Table.Th>{t('retention.decision')}</Table.Th>
              <Table.Th>{t('retention.reason')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Td>
                  <Link to={`/records/${r.id}`}>#{r.id}</Link>
                </Table.Td>
                <Table.Td>
                  <RelativeTime value={r.at.toISOString()} />
                </Table.Td>
                <Table.Td>
                  <Badge size="sm" variant="light" color={r.keep ? 'green' : 'red'}>
                    {r.keep ? t('retention.keep') : t('retention.remove')}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" c="dimmed">
                    {r.reason}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </div>
  );
}
