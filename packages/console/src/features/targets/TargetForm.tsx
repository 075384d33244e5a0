import { useState } from 'react';
import { Alert, Button, Divider, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconBrandGoogleDrive, IconPlugConnected } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { ResponseData } from '../../api/types.ts';
import { ApiError } from '../../api/api-error.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import {
  fieldErrorsOf,
  fieldSpecs,
  gibToQuota,
  initialValues,
  quotaToGib,
  specsFromConfig,
  toConfig,
  validateValues,
  type FieldValue,
} from './config-form.ts';
import type { CatalogueType } from './target-catalogue.ts';
import { ConfigFields } from './ConfigFields.tsx';
import { GeneralFields, type GeneralValues } from './GeneralFields.tsx';
import { useTargetActions, type TargetBody } from './use-target-actions.ts';
import { CONSOLE_CALLBACK_PATH, MASTER_CALLBACK_PATH } from './google-redirect.ts';

export type TargetDetail = ResponseData<'/api/storage-targets/{id}', 'get'>;

interface Props {
  typeName: string;
  /** The catalogue's description of the type; absent for a stored target of a type it does not list. */
  type: CatalogueType | undefined;
  target?: TargetDetail;
  onChangeType?: () => void;
}

/** Create or edit a target: general settings, the type's generated fields, test before saving, save (or connect to Google). */
export function TargetForm({ typeName, type, target, onChangeType }: Props) {
  const { t } = useTranslation('targets');
  const { t: tc } = useTranslation();
  const masked = target?.maskedFields ?? [];
  const storedConfig = target?.config ?? {};
  const [specs] = useState(() => (type ? fieldSpecs(type) : specsFromConfig(storedConfig, masked)));
  const [values, setValues] = useState(() => initialValues(specs, storedConfig, masked));
  const [general, setGeneral] = useState<GeneralValues>(() => ({
    name: target?.name ?? '',
    description: target?.description ?? '',
    enabled: target?.enabled ?? true,
    quotaGib: quotaToGib(target?.quotaBytes ?? 0),
    agentDirectUpload: target?.agentDirectUpload ?? false,
  }));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [redirectUri, setRedirectUri] = useState(() => `${window.location.origin}${CONSOLE_CALLBACK_PATH}`);
  const { save, test, authorise } = useTargetActions(target?.id);
  const oauth = type?.oauth ?? false;
  // An edit is tested with the stored secrets filling in those left empty (the route's targetId).
  const canTestUnsaved = !oauth;

  const setValue = (key: string, value: FieldValue) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors(({ [key]: _gone, ...rest }) => rest);
  };
  /** The request body, or undefined (with the errors shown) when a required field is empty. */
  const body = (): TargetBody | undefined => {
    const issues = validateValues(specs, values, masked);
    const next: Record<string, string> = {};
    for (const [key, issue] of Object.entries(issues))
      next[key] = issue === 'json' ? t('form.invalidJson') : t('form.required');
    if (!general.name.trim()) next.__name = t('form.required');
    setErrors(next);
    if (Object.keys(next).length > 0) return undefined;
    return {
      name: general.name.trim(),
      type: typeName,
      description: general.description,
      enabled: general.enabled,
      quotaBytes: gibToQuota(general.quotaGib),
      agentDirectUpload: general.agentDirectUpload,
      config: toConfig(specs, values, storedConfig),
    };
  };
  const showServerErrors = (err: unknown) => {
    if (err instanceof ApiError) setErrors((e) => ({ ...e, ...fieldErrorsOf(err.details) }));
  };
  const onSave = () => {
    const b = body();
    if (b) save.mutate(b, { onError: showServerErrors });
  };
  const onTest = () => {
    const b = body();
    if (b) test.mutate(b, { onError: showServerErrors });
  };
  const onAuthorise = () => {
    const b = body();
    if (!b) return;
    const { type: _type, agentDirectUpload: _direct, ...draft } = b;
    authorise.mutate(
      target ? { targetId: target.id, config: b.config, redirectUri } : { ...draft, type: typeName, redirectUri },
      { onError: showServerErrors },
    );
  };

  return (
    <Paper withBorder p="md">
      <Stack>
        <Group justify="space-between">
          <Text fw={600}>{t('form.typeLabel', { type: type?.displayName ?? typeName })}</Text>
          {onChangeType && (
            <Button variant="subtle" size="xs" onClick={onChangeType}>
              {t('form.changeType')}
            </Button>
          )}
        </Group>
        {!type && <Alert color="yellow">{t('form.unknownType', { type: typeName })}</Alert>}
        <Title order={2} size="h4">
          {t('form.general')}
        </Title>
        <GeneralFields
          values={general}
          onChange={(patch) => setGeneral((g) => ({ ...g, ...patch }))}
          nameError={errors.__name}
        />
        <Divider />
        <Title order={2} size="h4">
          {t('form.settings', { type: type?.displayName ?? typeName })}
        </Title>
        <ConfigFields specs={specs} values={values} errors={errors} maskedFields={masked} onChange={setValue} />
        {oauth && (
          <TextInput
            label={t('google.redirectUri')}
            value={redirectUri}
            onChange={(e) => setRedirectUri(e.currentTarget.value)}
            description={t('google.redirectHint', { masterPage: `${window.location.origin}${MASTER_CALLBACK_PATH}` })}
          />
        )}
        <ErrorAlert error={save.error ?? test.error ?? authorise.error} />
        {test.isSuccess && (
          <Alert color="green" title={t('test.ok')}>
            {test.data.message}
          </Alert>
        )}
        <Group justify="flex-end">
          {canTestUnsaved && (
            <Button
              variant="default"
              leftSection={<IconPlugConnected size={16} />}
              loading={test.isPending}
              onClick={onTest}
            >
              {t('test.before')}
            </Button>
          )}
          {oauth && (
            <Button
              variant={target ? 'default' : 'filled'}
              leftSection={<IconBrandGoogleDrive size={16} />}
              loading={authorise.isPending}
              onClick={onAuthorise}
            >
              {target ? t('google.reconnect') : t('google.connect')}
            </Button>
          )}
          {(!oauth || target) && (
            <Button loading={save.isPending} onClick={onSave}>
              {target ? tc('actions.save') : t('form.create')}
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
