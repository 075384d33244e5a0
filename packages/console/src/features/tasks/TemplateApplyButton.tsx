import { useState } from 'react';
import { Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { IconTemplate } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap, unwrapPage } from '../../api/client.ts';
import { ApiError } from '../../api/api-error.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { taskKeys } from './task-queries.ts';

/** "Create from template": applies a template with a new name (POST /api/task-templates/{id}/apply), then opens the new task's form. */
export function TemplateApplyButton() {
  const { t } = useTranslation('tasks');
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [templateId, setTemplateId] = useState<string | null>(null);
  const [name, setName] = useState('');
  const templates = useQuery({
    queryKey: ['templates', 'list'],
    enabled: open,
    queryFn: () => unwrapPage(api.GET('/api/task-templates', { params: { query: { offset: 0 } } })),
  });
  const apply = useMutation({
    mutationFn: async () => {
      const results = await unwrap(
        api.POST('/api/task-templates/{id}/apply', {
          params: { path: { id: Number(templateId) } },
          body: { variables: [{ name: name.trim() }] },
        }),
      );
      const first = results[0];
      if (!first?.success || !first.taskId)
        throw new ApiError(400, first?.code ?? 'TEMPLATE_APPLY_FAILED', first?.error ?? t('template.failed'));
      return first.taskId;
    },
    onSuccess: (id) => {
      void qc.invalidateQueries({ queryKey: taskKeys.all });
      void navigate(`/tasks/${id}/edit`);
    },
  });
  return (
    <>
      <Button variant="default" leftSection={<IconTemplate size={16} />} onClick={() => setOpen(true)}>
        {t('template.button')}
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={t('template.title')}>
        <Stack>
          <Select
            label={t('template.template')}
            data={(templates.data?.items ?? []).map((x) => ({ value: String(x.id), label: x.name }))}
            value={templateId}
            onChange={setTemplateId}
            searchable
            nothingFoundMessage={t('template.none')}
          />
          <TextInput label={t('fields.name')} value={name} onChange={(e) => setName(e.currentTarget.value)} required />
          {templates.isError && <ErrorAlert error={templates.error} />}
          {apply.isError && <ErrorAlert error={apply.error} />}
          <Group justify="flex-end">
            <Button
              onClick={() => apply.mutate()}
              loading={apply.isPending}
              disabled={!templateId || name.trim() === ''}
            >
              {t('template.apply')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
