import { Alert, Center, Loader, Stack } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { useCan } from '../../app/use-session.ts';
import { fetchTarget, targetKeys } from './target-queries.ts';
import { useCatalogue } from './use-catalogue.ts';
import { GOOGLE_DRIVE } from './target-catalogue.ts';
import { TargetOverview } from './TargetOverview.tsx';
import { TargetUsage } from './TargetUsage.tsx';
import { TargetForm } from './TargetForm.tsx';
import { TestTargetButton } from './TestTargetButton.tsx';
import { GoogleDriveAccount } from './GoogleDriveAccount.tsx';

/** /targets/:id: overview, usage, the Google account (google_drive), and for operators test, edit and delete. */
export function TargetDetailPage() {
  const { t } = useTranslation('targets');
  const { t: tc } = useTranslation();
  const id = Number(useParams().id);
  const can = useCan();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: targetKeys.detail(id),
    queryFn: () => fetchTarget(id),
    enabled: Number.isInteger(id) && id > 0,
  });
  const { types, isPending: cataloguePending } = useCatalogue();
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/storage-targets/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      notifications.show({ color: 'green', message: t('detail.deleted', { name: query.data?.name ?? '' }) });
      queryClient.removeQueries({ queryKey: targetKeys.detail(id) });
      await queryClient.invalidateQueries({ queryKey: targetKeys.list });
      void navigate('/targets');
    },
  });
  return (
    <QueryState query={query}>
      {(target) => (
        <>
          <PageHeader
            title={target.name}
            description={t('detail.title')}
            actions={
              can('write') && (
                <>
                  <TestTargetButton id={target.id} name={target.name} size="sm" />
                  <ConfirmButton
                    label={tc('actions.delete')}
                    leftSection={<IconTrash size={16} />}
                    title={t('detail.deleteConfirmTitle')}
                    message={tc('confirmDelete', { name: target.name })}
                    onConfirm={() => remove.mutateAsync()}
                    loading={remove.isPending}
                    error={remove.error}
                  />
                </>
              )
            }
          />
          <Stack>
            <TargetOverview target={target} showConfig={!can('write')} />
            {target.type === GOOGLE_DRIVE && <GoogleDriveAccount id={target.id} />}
            <TargetUsage id={target.id} />
            {!can('write') ? (
              <Alert color="gray">{t('detail.readOnly')}</Alert>
            ) : cataloguePending ? (
              <Center py="md">
                <Loader aria-label={tc('loading')} />
              </Center>
            ) : (
              <TargetForm
                key={target.updatedAt}
                typeName={target.type}
                type={types?.find((x) => x.name === target.type)}
                target={target}
              />
            )}
          </Stack>
        </>
      )}
    </QueryState>
  );
}
