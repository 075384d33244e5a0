import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { IconEdit, IconPlayerPlay } from '@tabler/icons-react';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { useCan } from '../../app/use-session.ts';
import { templateQuery } from './queries.ts';
import { useReferences } from './use-references.ts';
import { TemplateSummary } from './TemplateSummary.tsx';
import { ApplyDialog } from './ApplyDialog.tsx';

/** /templates/:id: what the template makes, and (operators) apply, edit, delete. */
export function TemplatePage() {
  const { t } = useTranslation('templates');
  const { t: tc } = useTranslation();
  const id = Number(useParams().id);
  const can = useCan();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const refs = useReferences();
  const query = useQuery(templateQuery(id));
  const [applying, applyDialog] = useDisclosure(false);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/task-templates/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      notifications.show({ color: 'green', message: t('deleted') });
      await queryClient.invalidateQueries({ queryKey: ['templates'] });
      void navigate('/templates');
    },
  });
  return (
    <QueryState query={query}>
      {(tpl) => (
        <Stack>
          <PageHeader
            title={t('viewTitle', { name: tpl.name })}
            description={tpl.description || undefined}
            actions={
              can('write') && (
                <>
                  <Button leftSection={<IconPlayerPlay size={16} />} onClick={applyDialog.open}>
                    {t('apply.button')}
                  </Button>
                  <Button
                    variant="default"
                    component={Link}
                    to={`/templates/${tpl.id}/edit`}
                    leftSection={<IconEdit size={16} />}
                  >
                    {tc('actions.edit')}
                  </Button>
                  <ConfirmButton
                    label={tc('actions.delete')}
                    title={t('deleteTitle')}
                    message={tc('confirmDelete', { name: tpl.name })}
                    onConfirm={() => remove.mutateAsync()}
                    loading={remove.isPending}
                    error={remove.error}
                  />
                </>
              )
            }
          />
          <Group gap="xs">
            <Badge variant="light" tt="none">
              {tpl.taskType}
            </Badge>
            {tpl.createdBy && (
              <Text size="sm" c="dimmed">
                {t('createdBy', { user: tpl.createdBy })}
              </Text>
            )}
            <Text size="sm" c="dimmed">
              ·
            </Text>
            <RelativeTime value={tpl.updatedAt} />
          </Group>
          <TemplateSummary payload={tpl.payload} refs={refs} />
          {can('write') && (
            <ApplyDialog
              key={String(applying)}
              template={tpl}
              nodes={refs.nodes}
              opened={applying}
              onClose={applyDialog.close}
            />
          )}
        </Stack>
      )}
    </QueryState>
  );
}
