import { Anchor, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { formatBytes } from '../../lib/time.ts';
import type { ResponseData } from '../../api/types.ts';
import { Panel } from './Panel.tsx';

type Records = ResponseData<'/api/dashboard/stats', 'get'>['recentRecords'];

/** The ten newest runs (from the stats), each linking to its record. */
export function RecentRuns({ records }: { records: Records }) {
  const { t } = useTranslation('dashboard');
  return (
    <Panel
      title={t('recent.title')}
      actions={
        <Anchor component={Link} to="/records" size="sm">
          {t('nav.records', { ns: 'common' })}
        </Anchor>
      }
    >
      {records.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('recent.empty')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('recent.task')}</Table.Th>
                <Table.Th>{t('recent.status')}</Table.Th>
                <Table.Th>{t('recent.size')}</Table.Th>
                <Table.Th>{t('recent.when')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {records.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/records/${r.id}`} size="sm">
                      {r.taskName}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={r.state} />
                  </Table.Td>
                  <Table.Td>{formatBytes(r.fileSize)}</Table.Td>
                  <Table.Td>
                    <RelativeTime value={r.startedAt ?? r.queuedAt} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Panel>
  );
}
