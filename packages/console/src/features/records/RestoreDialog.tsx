import { useState } from 'react';
import { Alert, Button, Checkbox, Code, Group, List, Modal, Radio, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import type { RequestBody } from '../../api/types.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { restoreRequest, type RestoreChoices, type RestoreProblem } from './restore-request.ts';
import { databasesOf, isDumpArchive } from './run-state.ts';
import { useNodeName } from './use-node-name.ts';

export interface RestoreSource {
  id: number;
  type: string;
  fileName: string;
  nodeId: number;
  hasContents: boolean;
}

const SHOWN = 8;

/**
 * The restore form: exactly the fields of POST /api/backup/records/{id}/restore. File records:
 * the original place or another absolute folder, with the selection from the contents browser.
 * Database records: the task's database or another name, and for several-database artifacts
 * which databases. On success it opens the restore's page with its live log.
 */
export function RestoreDialog({
  source,
  selectedPaths,
  opened,
  onClose,
}: {
  source: RestoreSource;
  selectedPaths: string[];
  opened: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation('records');
  const { t: tc } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const nodeName = useNodeName();
  const [choices, setChoices] = useState<RestoreChoices>({
    destination: 'original',
    targetPath: '',
    targetDatabase: '',
    databases: [],
  });
  const [problem, setProblem] = useState<RestoreProblem | null>(null);
  const kind = source.type === 'file' ? 'file' : 'database';
  const several = kind === 'database' && isDumpArchive(source.fileName);
  const listing = useQuery({
    queryKey: ['backup-records', source.id, 'contents', ''],
    enabled: opened && several && source.hasContents,
    queryFn: () =>
      unwrap(
        api.GET('/api/backup/records/{id}/contents', {
          params: { path: { id: source.id }, query: { limit: 10_000, offset: 0 } },
        }),
      ),
  });
  const databases = databasesOf(listing.data?.entries.map((e) => e.path) ?? []);
  const start = useMutation({
    mutationFn: (body: RequestBody<'/api/backup/records/{id}/restore', 'post'>) =>
      unwrap(api.POST('/api/backup/records/{id}/restore', { params: { path: { id: source.id } }, body })),
    onSuccess: (r) => {
      notifications.show({ color: 'green', message: t('restore.started', { id: r.id }) });
      void queryClient.invalidateQueries({ queryKey: ['restore-records'] });
      void navigate(`/restores/${r.id}`);
    },
  });
  const submit = () => {
    const req = restoreRequest(
      { kind, severalDatabases: several, ...(databases.length ? { databaseCount: databases.length } : {}) },
      choices,
      selectedPaths,
    );
    if ('problem' in req) {
      setProblem(req.problem);
      return;
    }
    setProblem(null);
    start.mutate(req.body);
  };
  const set = (patch: Partial<RestoreChoices>) => {
    setProblem(null);
    setChoices((c) => ({ ...c, ...patch }));
  };
  return (
    <Modal opened={opened} onClose={onClose} title={t('restore.title', { id: source.id })} size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Stack>
          {kind === 'file' && (
            <>
              {selectedPaths.length === 0 ? (
                <Text size="sm" fw={500}>
                  {t('restore.whatAll')}
                </Text>
              ) : (
                <div>
                  <Text size="sm" fw={500}>
                    {t('restore.whatSelected', { count: selectedPaths.length })}
                  </Text>
                  <List size="sm" mt={4}>
                    {selectedPaths.slice(0, SHOWN).map((p) => (
                      <List.Item key={p}>
                        <Code>/{p}</Code>
                      </List.Item>
                    ))}
                    {selectedPaths.length > SHOWN && <List.Item>…</List.Item>}
                  </List>
                </div>
              )}
              <Radio.Group
                label={t('restore.destination')}
                value={choices.destination}
                onChange={(v) => set({ destination: v === 'folder' ? 'folder' : 'original' })}
              >
                <Stack gap="xs" mt={4}>
                  <Radio value="original" label={t('restore.original')} description={t('restore.originalHint')} />
                  <Radio value="folder" label={t('restore.folder')} description={t('restore.folderHint')} />
                </Stack>
              </Radio.Group>
              {choices.destination === 'folder' && (
                <TextInput
                  label={t('restore.targetPath')}
                  placeholder={t('restore.targetPathPlaceholder')}
                  required
                  data-autofocus
                  value={choices.targetPath}
                  onChange={(e) => set({ targetPath: e.currentTarget.value })}
                />
              )}
            </>
          )}
          {kind === 'database' && (
            <>
              {several && databases.length > 0 && (
                <Checkbox.Group
                  label={t('restore.databases')}
                  description={t('restore.databasesHint')}
                  value={[...choices.databases]}
                  onChange={(v) => set({ databases: v })}
                >
                  <Stack gap={4} mt={4}>
                    {databases.map((d) => (
                      <Checkbox key={d} value={d} label={d} />
                    ))}
                  </Stack>
                </Checkbox.Group>
              )}
              <TextInput
                label={t('restore.targetDatabase')}
                description={t('restore.targetDatabaseHint')}
                value={choices.targetDatabase}
                onChange={(e) => set({ targetDatabase: e.currentTarget.value })}
              />
            </>
          )}
          <Text size="sm" c="dimmed">
            {source.nodeId === 0 ? t('restore.onMaster') : t('restore.onNode', { node: nodeName(source.nodeId) })}
          </Text>
          <Alert color="yellow" variant="light">
            {t('restore.replaceWarning')}
          </Alert>
          {problem && (
            <Alert color="red" role="alert">
              {t(`restore.problem.${problem}`)}
            </Alert>
          )}
          <ErrorAlert error={start.error ?? listing.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {tc('actions.cancel')}
            </Button>
            <Button type="submit" loading={start.isPending}>
              {t('restore.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
