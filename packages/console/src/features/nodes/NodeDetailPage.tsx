import { Alert, Paper, Stack, Text, Title } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { NodeFsBrowser } from '../../components/NodeFsBrowser.tsx';
import { useCan } from '../../app/use-session.ts';
import { fetchNode, nodeKeys } from './node-queries.ts';
import { NodeOverview } from './NodeOverview.tsx';
import { NodeEditForm } from './NodeEditForm.tsx';
import { RotateTokenButton } from './RotateTokenButton.tsx';
import { InstallerSection } from './InstallerSection.tsx';

/** /nodes/:id: overview; operators browse its files; admins edit, rotate the token, issue installers, delete. */
export function NodeDetailPage() {
  const { t } = useTranslation('nodes');
  const { t: tc } = useTranslation();
  const id = Number(useParams().id);
  const can = useCan();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: nodeKeys.detail(id),
    queryFn: () => fetchNode(id),
    enabled: Number.isInteger(id) && id > 0,
    refetchInterval: 15_000,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/nodes/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      notifications.show({ color: 'green', message: t('detail.deleted', { name: query.data?.name ?? '' }) });
      queryClient.removeQueries({ queryKey: nodeKeys.detail(id) });
      await queryClient.invalidateQueries({ queryKey: nodeKeys.list });
      void navigate('/nodes');
    },
  });
  return (
    <QueryState query={query}>
      {(node) => (
        <>
          <PageHeader
            title={node.name}
            description={t('detail.title')}
            actions={
              can('admin') &&
              !node.isLocal && (
                <>
                  <RotateTokenButton id={node.id} />
                  <ConfirmButton
                    label={tc('actions.delete')}
                    leftSection={<IconTrash size={16} />}
                    title={t('detail.deleteTitle')}
                    message={tc('confirmDelete', { name: node.name })}
                    onConfirm={() => remove.mutateAsync()}
                    loading={remove.isPending}
                    error={remove.error}
                  />
                </>
              )
            }
          />
          <Stack>
            <NodeOverview node={node} />
            {can('admin') ? (
              <NodeEditForm key={node.updatedAt} node={node} />
            ) : (
              <Alert color="gray">{t('detail.readOnly')}</Alert>
            )}
            {can('admin') && !node.isLocal && <InstallerSection nodeId={node.id} />}
            {can('write') && (
              <Paper withBorder p="md">
                <Title order={2} size="h4">
                  {t('detail.files')}
                </Title>
                <Text size="sm" c="dimmed" mb="sm">
                  {t('detail.filesHint')}
                </Text>
                {node.status === 'offline' && !node.isLocal ? (
                  <Alert color="gray">{t('detail.filesOffline')}</Alert>
                ) : (
                  <NodeFsBrowser nodeId={node.id} />
                )}
              </Paper>
            )}
          </Stack>
        </>
      )}
    </QueryState>
  );
}
