import { NumberInput, SimpleGrid, TagsInput, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { isBandwidth, type NodeSettingsValues } from './node-form.ts';

/** What PUT/POST /api/nodes accept: name, labels, and for agents concurrency and bandwidth. */
export function NodeSettingsFields({
  values,
  onChange,
  isLocal = false,
  nameError,
}: {
  values: NodeSettingsValues;
  onChange: (v: NodeSettingsValues) => void;
  isLocal?: boolean;
  nameError?: string;
}) {
  const { t } = useTranslation('nodes');
  const set = (patch: Partial<NodeSettingsValues>) => onChange({ ...values, ...patch });
  return (
    <>
      <TextInput
        label={t('form.name')}
        required
        maxLength={128}
        value={values.name}
        error={nameError}
        onChange={(e) => set({ name: e.currentTarget.value })}
      />
      <TagsInput
        label={t('form.labels')}
        description={t('form.labelsHint')}
        value={values.labels}
        onChange={(labels) => set({ labels })}
        clearable
      />
      {!isLocal && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NumberInput
            label={t('form.maxConcurrent')}
            description={t('form.maxConcurrentHint')}
            min={0}
            max={64}
            allowDecimal={false}
            value={values.maxConcurrent}
            onChange={(v) => set({ maxConcurrent: typeof v === 'number' ? v : Number(v) || 0 })}
          />
          <TextInput
            label={t('form.bandwidth')}
            description={t('form.bandwidthHint')}
            placeholder="10M"
            value={values.bandwidthLimit}
            error={isBandwidth(values.bandwidthLimit) ? undefined : t('form.bandwidthInvalid')}
            onChange={(e) => set({ bandwidthLimit: e.currentTarget.value })}
          />
        </SimpleGrid>
      )}
    </>
  );
}
