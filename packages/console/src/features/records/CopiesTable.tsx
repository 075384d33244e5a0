import { Code, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatBytes } from '../../lib/time.ts';
import type { ResponseData } from '../../api/types.ts';

type Copy = ResponseData<'/api/backup/records/{id}', 'get'>['storageUploadResults'][number];

/** Each storage target holding (or meant to hold) the record's artifact. */
export function CopiesTable({ copies }: { copies: Copy[] }) {
  const { t } = useTranslation('records');
  return (
    <>
      <Title order={2} size="h4" mt="lg">{t('detail.copies')}</Title>
      <Text size="sm" c="dimmed" mb="xs">{t('detail.copiesHint')}</Text>
      {copies.length === 0 ? <Text size="sm">{t('detail.noCopies')}</Text> : (
        <Table.ScrollContainer minWidth={720}>
          <Table verticalSpacing="xs" data-testid="record-copies">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('col.target')}</Table.Th>
                <Table.Th>{t('col.status')}</Table.Th>
                <Table.Th>{t('col.size')}</Table.Th>
                <Table.Th>{t('detail.path')}</Table.Th>
                <Table.Th>{t('detail.transfer')}</Table.Th>
                <Table.Th>{t('detail.attempts')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {copies.map((c) => (
                <Table.Tr key={`${c.storageTargetId}-${c.storagePath}`}>
                  <Table.Td>{c.storageTargetName}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={c.status} />
                    {c.corruptAt && <Text size="xs" c="red">{t('detail.corruptAt')} <RelativeTime value={c.corruptAt} size="xs" /></Text>}
                    {c.error && <Text size="xs" c={c.status === 'success' ? 'dimmed' : 'red'}>{c.error}</Text>}
                  </Table.Td>
                  <Table.Td>{formatBytes(c.fileSize)}</Table.Td>
                  <Table.Td><Code style={{ wordBreak: 'break-all' }}>{c.storagePath || '—'}</Code></Table.Td>
                  <Table.Td><Text size="sm">{c.transferMode}</Text></Table.Td>
                  <Table.Td><Text size="sm">{c.attempts}</Text></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}
