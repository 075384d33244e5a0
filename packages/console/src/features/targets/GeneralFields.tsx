import { NumberInput, SimpleGrid, Switch, TextInput, Textarea } from '@mantine/core';
import { useTranslation } from 'react-i18next';

export interface GeneralValues {
  name: string;
  description: string;
  enabled: boolean;
  quotaGib: number;
  agentDirectUpload: boolean;
}

/** The settings every target has, whatever its type (TargetInput's own fields). */
export function GeneralFields({
  values,
  onChange,
  nameError,
}: {
  values: GeneralValues;
  onChange: (patch: Partial<GeneralValues>) => void;
  nameError?: string;
}) {
  const { t } = useTranslation('targets');
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput
          label={t('form.name')}
          required
          maxLength={128}
          value={values.name}
          error={nameError}
          onChange={(e) => onChange({ name: e.currentTarget.value })}
        />
        <NumberInput
          label={t('form.quota')}
          description={t('form.quotaHint')}
          min={0}
          decimalScale={3}
          value={values.quotaGib}
          onChange={(v) => onChange({ quotaGib: typeof v === 'number' ? v : Number(v) || 0 })}
        />
      </SimpleGrid>
      <Textarea
        label={t('form.description')}
        maxLength={500}
        autosize
        minRows={1}
        value={values.description}
        onChange={(e) => onChange({ description: e.currentTarget.value })}
      />
      <Switch
        label={t('form.enabled')}
        description={t('form.enabledHint')}
        checked={values.enabled}
        onChange={(e) => onChange({ enabled: e.currentTarget.checked })}
      />
      <Switch
        label={t('form.agentDirectUpload')}
        description={t('form.agentDirectUploadHint')}
        checked={values.agentDirectUpload}
        onChange={(e) => onChange({ agentDirectUpload: e.currentTarget.checked })}
      />
    </>
  );
}
