import { useState } from 'react';
import { Button, FileButton, List, Modal, Table, Text } from '@mantine/core';
import { IconDownload, IconUpload } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, downloadFile, unwrap } from '../../api/client.ts';
import type { RequestBody, ResponseData } from '../../api/types.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { taskKeys } from './task-queries.ts';

type ImportReport = ResponseData<'/api/backup/tasks/import', 'post'>;

/** Export every task (or the selected ones) as the v1 JSON file; import such a file (writers). */
export function TaskTransferButtons({ selected, canWrite }: { selected: number[]; canWrite: boolean }) {
  const { t } = useTranslation('tasks');
  const qc = useQueryClient();
  const [report, setReport] = useState<ImportReport | null>(null);
  const [exportError, setExportError] = useState<unknown>(null);
  const doExport = async () => {
    setExportError(null);
    const query = selected.length ? `?ids=${selected.join(',')}` : '';
    await downloadFile(`/api/backup/tasks/export${query}`, 'backplane-tasks.json').catch((err: unknown) =>
      setExportError(err),
    );
  };
  const importFile = useMutation({
    mutationFn: async (file: File) => {
      let body: RequestBody<'/api/backup/tasks/import', 'post'>;
      try {
        body = JSON.parse(await file.text()) as typeof body;
      } catch {
        throw new Error(t('transfer.notJson'));
      }
      return unwrap(api.POST('/api/backup/tasks/import', { body }));
    },
    onSuccess: (r) => {
      setReport(r);
      void qc.invalidateQueries({ queryKey: taskKeys.all });
    },
    onError: (err) =>
      notifications.show({
        color: 'red',
        title: t('transfer.importFailed'),
        message: 'code' in err ? `${err.message} (${String(err.code)})` : err.message,
      }),
  });
  return (
    <>
      <Button variant="default" leftSection={<IconDownload size={16} />} onClick={() => void doExport()}>
        {selected.length ? t('transfer.exportSelected', { count: selected.length }) : t('transfer.export')}
      </Button>
      {canWrite && (
        <FileButton onChange={(f) => f && importFile.mutate(f)} accept="application/json,.json">
          {(props) => (
            <Button {...props} variant="default" leftSection={<IconUpload size={16} />} loading={importFile.isPending}>
              {t('transfer.import')}
            </Button>
          )}
        </FileButton>
      )}
      {exportError !== null && <ErrorAlert error={exportError} />}
      <Modal opened={report !== null} onClose={() => setReport(null)} title={t('transfer.reportTitle')} size="lg">
        {report && (
          <Table.ScrollContainer minWidth={480}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('fields.name')}</Table.Th>
                  <Table.Th>{t('transfer.result')}</Table.Th>
                  <Table.Th>{t('transfer.notes')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {report.map((r, i) => (
                  <Table.Tr key={`${r.name}-${i}`}>
                    <Table.Td>{r.taskId ? <Link to={`/tasks/${r.taskId}`}>{r.name}</Link> : r.name}</Table.Td>
                    <Table.Td>
                      <StatusBadge status={r.skipped ? 'skipped' : r.success ? 'success' : 'failed'} />
                    </Table.Td>
                    <Table.Td>
                      {r.error && (
                        <Text size="sm" c={r.success ? undefined : 'red'}>
                          {r.error}
                          {r.code ? ` (${r.code})` : ''}
                        </Text>
                      )}
                      {r.warnings.length > 0 && (
                        <List size="xs">
                          {r.warnings.map((w) => (
                            <List.Item key={w}>{w}</List.Item>
                          ))}
                        </List>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Modal>
    </>
  );
}
