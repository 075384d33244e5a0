import { useState } from 'react';
import { Button, Group, Paper, Stack, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import type { RequestBody, ResponseData } from '../../api/types.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import {
  newTemplateValues,
  payloadFromValues,
  valuesFromPayload,
  type FieldError,
  type TemplateValues,
} from './template-fields.ts';
import { TemplatePayloadForm } from './TemplatePayloadForm.tsx';
import { useReferences } from './use-references.ts';

type Template = ResponseData<'/api/task-templates/{id}', 'get'>;
type Payload = RequestBody<'/api/task-templates', 'post'>['payload'];

/** Create or edit a template: its name and description, and the task settings it holds. */
export function TemplateEditor({ template }: { template?: Template }) {
  const { t } = useTranslation('templates');
  const { t: tc } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const refs = useReferences();
  const [name, setName] = useState(template?.name ?? '');
  const [description, setDescription] = useState(template?.description ?? '');
  const [values, setValues] = useState<TemplateValues>(() =>
    template ? valuesFromPayload(template.payload) : newTemplateValues(),
  );
  const [errors, setErrors] = useState<Record<string, FieldError>>({});

  const save = useMutation({
    mutationFn: async () => {
      const { payload, errors: fieldErrors } = payloadFromValues(values, refs.drivers);
      const all = { ...fieldErrors, ...(name.trim() ? {} : { name: 'required' as const }) };
      setErrors(all);
      if (Object.keys(all).length) throw new Error(t('fixFields'));
      // payloadFromValues builds the payload field by field from TEMPLATE_FIELDS, whose keys payload-coverage.ts checks against this type.
      const body = { name: name.trim(), description: description.trim(), payload: payload as Payload };
      return template
        ? unwrap(api.PUT('/api/task-templates/{id}', { params: { path: { id: template.id } }, body }))
        : unwrap(api.POST('/api/task-templates', { body }));
    },
    onSuccess: async (saved) => {
      notifications.show({ color: 'green', message: template ? t('saved') : t('created') });
      await queryClient.invalidateQueries({ queryKey: ['templates'] });
      void navigate(`/templates/${saved.id}`);
    },
  });

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <Stack>
        <ErrorAlert error={refs.error} />
        <Paper withBorder p="md">
          <Stack gap="sm">
            <TextInput
              label={t('name')}
              required
              maxLength={128}
              value={name}
              error={errors.name ? t('errors.required') : undefined}
              onChange={(e) => setName(e.currentTarget.value)}
              data-field="name"
            />
            <Textarea
              label={t('templateDescription')}
              maxLength={500}
              autosize
              minRows={2}
              value={description}
              onChange={(e) => setDescription(e.currentTarget.value)}
            />
          </Stack>
        </Paper>
        <TemplatePayloadForm
          values={values}
          errors={errors}
          refs={refs}
          passwordStored={template?.maskedFields.includes('dbPassword') ?? false}
          disabled={false}
          onChange={(key, v) => setValues((prev) => ({ ...prev, [key]: v }))}
        />
        <ErrorAlert error={save.error} />
        <Group>
          <Button type="submit" loading={save.isPending}>
            {tc('actions.save')}
          </Button>
          <Button
            variant="default"
            onClick={() => void navigate(template ? `/templates/${template.id}` : '/templates')}
          >
            {tc('actions.cancel')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
