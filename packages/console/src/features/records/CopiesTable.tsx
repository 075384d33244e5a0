import { ActionIcon, Code, Table, Text, Title, Tooltip, VisuallyHidden } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { downloadFile } from '../../api/client.ts';
import { ApiError } from '../../api/api-error.ts';
import { useTranslation } from 'react-i18next';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatBytes } from '../../lib/time.ts';
import type { ResponseData } from '../../api/types.ts';

type Copy = ResponseData<'/api/backup/records/{id}', 'get'>['storageUploadResults'][number];

/** Each storage target holding (or meant to hold) the record's artifact; an intact copy can be downloaded from its target. */
export function CopiesTable({ recordId, fileName, copies }: { recordId: number; fileName: string; copies: Copy[] }) {
  const { t } = useTranslation('records');
  const download = (c: Copy) => {
    downloadFile(
      `/api/backup/records/${recordId}/download?storageTargetId=${c.storageTargetId}`,
      fileName || `record-${recordId}`,
    ).catch((err: unknown) => {
      notifications.show({
        color: 'red',
        title: t('detail.downloadFailed'),
        message: err instanceof ApiError ? `${err.message} (${err.code})` : String(err),
      });
    });
  };
  return (
    <>
      <Title order={2} size="h4" mt="lg">
        {t('detail.copies')}
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        {t('detail.copiesHint')}
      </Text>
      {copies.length === 0 ? (
        <Text size="sm">{t('detail.noCopies')}</Text>
      ) : (
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
                <Table.Th>
                  <VisuallyHidden>{t('actions.download')}</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {copies.map((c) => (
                <Table.Tr key={`${c.storageTargetId}-${c.storagePath}`}>
                  <Table.Td>{c.storageTargetName}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={c.status} />
                    {c.corruptAt && (
                      <Text size="xs" c="red">
                        {t('detail.corruptAt')} <RelativeTime value={c.corruptAt} size="xs" />
                      </Text>
                    )}
                    {c.error && (
                      <Text size="xs" c={c.status === 'success' ? 'dimmed' : 'red'}>
                        {c.errorCode && <Code>{c.errorCode}</Code>} {c.error}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{formatBytes(c.fileSize)}</Table.Td>
                  <Table.Td>
                    <Code style={{ wordBreak: 'break-all' }}>{c.storagePath || '—'}</Code>
                    {c.snapshotId && (
                      <Text size="xs" data-testid="copy-snapshot">
                        {t('detail.snapshot')} <Code title={c.snapshotId}>{c.snapshotId.slice(0, 8)}</Code>
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{c.transferMode}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{c.attempts}</Text>
                  </Table.Td>
                  <Table.Td>
                    {c.status === 'success' && !c.corruptAt && (
                      <Tooltip label={t('detail.downloadCopy', { target: c.storageTargetName })}>
                        <ActionIcon
                          variant="subtle"
                          aria-label={t('detail.downloadCopy', { target: c.storageTargetName })}
                          onClick={() => download(c)}
                        >
                          <IconDownload size={16} />
                        </ActionIcon>
                      </Tooltip>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}
