import { useMemo, useState } from 'react';
import { Button, Grid, Group, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { IconSend } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import type { ResponseData } from '../../api/types.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import {
  configFromValues,
  initialValues,
  inputSpecs,
  specsFromConfig,
  type FieldError,
  type FormValues,
} from './channel-form.ts';
import { NEW_CHANNEL, commonBody, commonOf, validateCommon, type ChannelCommon } from './channel-settings.ts';
import { CommonFields } from './CommonFields.tsx';
import { ConfigFields } from './ConfigFields.tsx';
import { TestOutcome } from './TestOutcome.tsx';
import { useChannelTest } from './use-channel-test.ts';

type ChannelType = ResponseData<'/api/notifications/types', 'get'>[number];
type Channel = ResponseData<'/api/notifications/{id}', 'get'>;

export interface ChannelFormProps {
  types: ChannelType[];
  /** The stored channel when editing; absent for a new one. */
  channel?: Channel;
  readOnly: boolean;
}

/** A channel's form, generated from its type's catalogue entry, with its common settings, save and test. */
export function ChannelForm({ types, channel, readOnly }: ChannelFormProps) {
  const { t } = useTranslation('notifications');
  const { t: tc } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const masked = channel?.maskedFields ?? [];
  const [typeName, setTypeName] = useState<string>(channel?.type ?? '');
  const type = types.find((x) => x.type === typeName);
  const specs = useMemo(
    () => (type ? inputSpecs(type) : channel ? specsFromConfig(channel.config, masked) : []),
    [type, channel, masked],
  );
  const [common, setCommon] = useState<ChannelCommon>(channel ? commonOf(channel) : NEW_CHANNEL);
  const [values, setValues] = useState<FormValues>(() => initialValues(specs, channel?.config, masked));
  const [errors, setErrors] = useState<Record<string, FieldError>>({});
  const [commonErrors, setCommonErrors] = useState<ReturnType<typeof validateCommon>>({});
  const test = useChannelTest(channel?.id);

  const chooseType = (next: string | null) => {
    const chosen = types.find((x) => x.type === next);
    setTypeName(next ?? '');
    setValues(chosen ? initialValues(inputSpecs(chosen)) : {});
    setErrors({});
    test.unsaved.reset();
  };

  /** The body, or null when the form has errors (then shown at their fields). */
  const body = () => {
    const { config, errors: fieldErrors } = configFromValues(specs, values, masked);
    const ce = validateCommon(common);
    setErrors(fieldErrors);
    setCommonErrors(ce);
    if (!typeName || Object.keys(fieldErrors).length || Object.keys(ce).length) return null;
    return { ...commonBody(common), type: typeName, config };
  };

  const save = useMutation({
    mutationFn: async () => {
      const b = body();
      if (!b) throw new Error(t('errors.fixFields'));
      return channel
        ? unwrap(api.PUT('/api/notifications/{id}', { params: { path: { id: channel.id } }, body: b }))
        : unwrap(api.POST('/api/notifications', { body: b }));
    },
    onSuccess: async (saved) => {
      notifications.show({ color: 'green', message: channel ? t('saved') : t('created') });
      await queryClient.invalidateQueries({ queryKey: ['notifications'] });
      if (!channel) void navigate(`/notifications/${saved.id}`, { replace: true });
    },
  });

  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/notifications/{id}', { params: { path: { id: channel?.id ?? 0 } } })),
    onSuccess: async () => {
      notifications.show({ color: 'green', message: t('deleted') });
      await queryClient.invalidateQueries({ queryKey: ['notifications'] });
      void navigate('/notifications');
    },
  });

  const sendTest = () => {
    if (channel) return test.saved.mutate();
    const b = body();
    if (b) test.unsaved.mutate(b);
  };
  const testing = channel ? test.saved : test.unsaved;
  const disabled = readOnly;

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!readOnly) save.mutate();
      }}
    >
      <Stack>
        {readOnly && (
          <Text c="dimmed" size="sm">
            {t('readOnly')}
          </Text>
        )}
        {channel && !type && (
          <Text c="orange" size="sm">
            {t('typeMissing', { type: channel.type })}
          </Text>
        )}
        <Grid>
          <Grid.Col span={{ base: 12, md: 6 }}>
            <Paper withBorder p="md">
              <Title order={2} size="h4" mb="sm">
                {t('sections.config')}
              </Title>
              <Stack gap="sm">
                <Select
                  label={t('fields.type')}
                  placeholder={t('fields.typePlaceholder')}
                  required
                  searchable
                  allowDeselect={false}
                  data={types.map((x) => ({ value: x.type, label: x.displayName }))}
                  value={typeName || null}
                  onChange={chooseType}
                  disabled={disabled || !!channel}
                  description={type?.description}
                  data-field="type"
                />
                {type || channel ? (
                  <ConfigFields
                    key={typeName}
                    specs={specs}
                    values={values}
                    errors={errors}
                    maskedFields={masked}
                    disabled={disabled}
                    onChange={(key, v) => setValues((prev) => ({ ...prev, [key]: v }))}
                  />
                ) : null}
              </Stack>
            </Paper>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 6 }}>
            <Paper withBorder p="md">
              <Title order={2} size="h4" mb="sm">
                {t('sections.general')}
              </Title>
              <CommonFields
                value={common}
                errors={commonErrors}
                disabled={disabled}
                onChange={(patch) => setCommon((prev) => ({ ...prev, ...patch }))}
              />
            </Paper>
          </Grid.Col>
        </Grid>
        <ErrorAlert error={save.error} />
        <TestOutcome data={testing.data} error={testing.error} />
        {!readOnly && (
          <Group justify="space-between">
            <Group>
              <Button type="submit" loading={save.isPending}>
                {tc('actions.save')}
              </Button>
              <Button
                variant="default"
                leftSection={<IconSend size={16} />}
                loading={testing.isPending}
                disabled={!typeName}
                onClick={sendTest}
              >
                {channel ? t('test.saved') : t('test.unsaved')}
              </Button>
              {channel && (
                <Text size="xs" c="dimmed">
                  {t('test.savedHint')}
                </Text>
              )}
            </Group>
            {channel && (
              <ConfirmButton
                label={tc('actions.delete')}
                title={t('deleteTitle')}
                message={tc('confirmDelete', { name: channel.name })}
                onConfirm={() => remove.mutateAsync()}
                loading={remove.isPending}
                error={remove.error}
              />
            )}
          </Group>
        )}
      </Stack>
    </form>
  );
}
