import { useState } from 'react';
import { Alert, Anchor, Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useDatabaseTypes } from '../tasks/task-queries.ts';
import { applies, isFileType } from './template-fields.ts';
import { EMPTY_ROW, MAX_APPLY, createdTaskPath, variablesOf, type ApplyRow } from './apply-variables.ts';
import { ApplyRowFields } from './ApplyRowFields.tsx';
import type { Option } from './use-references.ts';

export interface ApplyDialogProps {
  template: { id: number; name: string; taskType: string };
  nodes: Option[];
  opened: boolean;
  onClose: () => void;
}

/** "Apply": creates one task per row (POST /api/task-templates/{id}/apply); one created task opens at once. */
export function ApplyDialog({ template, nodes, opened, onClose }: ApplyDialogProps) {
  const { t } = useTranslation('templates');
  const { t: tc } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const drivers = useDatabaseTypes();
  const [rows, setRows] = useState<ApplyRow[]>([EMPTY_ROW]);
  const [missing, setMissing] = useState<number[]>([]);
  const apply = useMutation({
    mutationFn: () => {
      const { variables, missingNames } = variablesOf(rows);
      setMissing(missingNames);
      if (missingNames.length) throw new Error(t('apply.missingName'));
      return unwrap(
        api.POST('/api/task-templates/{id}/apply', { params: { path: { id: template.id } }, body: { variables } }),
      );
    },
    onSuccess: async (results) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['tasks'] }),
        queryClient.invalidateQueries({ queryKey: ['templates', 'ref', 'tasks'] }),
      ]);
      const path = createdTaskPath(results);
      if (path) void navigate(path);
    },
  });
  const isFile = isFileType(template.taskType, drivers);
  const dbHost = applies({ key: 'dbHost', only: 'database' }, template.taskType, drivers);
  const dbName = applies({ key: 'dbName', only: 'database' }, template.taskType, drivers);
  const results = apply.data;
  const created = results?.filter((r) => r.success).length ?? 0;
  const set = (i: number, patch: Partial<ApplyRow>) =>
    setRows((prev) => prev.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Modal opened={opened} onClose={onClose} title={t('apply.title', { name: template.name })} size="xl">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          apply.mutate();
        }}
      >
        <Stack>
          <Text size="sm" c="dimmed">
            {t('apply.intro')}
          </Text>
          {rows.map((row, i) => (
            <ApplyRowFields
              key={i}
              index={i}
              row={row}
              isFile={isFile}
              dbHost={dbHost}
              dbName={dbName}
              nodes={nodes}
              nameMissing={missing.includes(i)}
              onChange={(patch) => set(i, patch)}
              onRemove={rows.length > 1 ? () => setRows((prev) => prev.filter((_, j) => j !== i)) : undefined}
            />
          ))}
          {rows.length < MAX_APPLY && (
            <Button
              variant="subtle"
              leftSection={<IconPlus size={16} />}
              onClick={() => setRows((prev) => [...prev, EMPTY_ROW])}
              w="fit-content"
            >
              {t('apply.addRow')}
            </Button>
          )}
          <ErrorAlert error={apply.error} />
          {results && (
            <Alert
              color={created === results.length ? 'green' : 'orange'}
              title={t('apply.createdSome', { created, total: results.length })}
              role="status"
            >
              <List size="sm">
                {results.map((r) => (
                  <List.Item key={r.index}>
                    {r.success && r.taskId !== undefined ? (
                      <Anchor component={Link} to={`/tasks/${r.taskId}`}>
                        {r.name}
                      </Anchor>
                    ) : (
                      <Text span size="sm" c="red">
                        {r.name || t('apply.row', { n: r.index + 1 })}: {r.error} {r.code && `(${r.code})`}
                      </Text>
                    )}
                  </List.Item>
                ))}
              </List>
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {tc('actions.close')}
            </Button>
            <Button type="submit" loading={apply.isPending}>
              {t('apply.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
