import { Alert, NumberInput, SimpleGrid, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TaskForm } from './form-types.ts';
import { FormSection } from './FormSection.tsx';
import { RetentionPreview } from './RetentionPreview.tsx';
import { isGfs } from '../retention-preview.ts';
import type { PreviewRecord } from '../retention-preview.ts';

const n = (v: number | '') => (v === '' ? 0 : v);

/** Simple (maxBackups, retentionDays) or GFS (keep daily/weekly/monthly/yearly) retention, with its preview on the task's records. */
export function RetentionSection({
  form,
  records,
  timeZone,
}: {
  form: TaskForm;
  records: PreviewRecord[] | null;
  timeZone: string;
}) {
  const { t } = useTranslation('tasks');
  const v = form.values;
  const rule = {
    maxBackups: n(v.maxBackups),
    retentionDays: n(v.retentionDays),
    keepDaily: n(v.keepDaily),
    keepWeekly: n(v.keepWeekly),
    keepMonthly: n(v.keepMonthly),
    keepYearly: n(v.keepYearly),
  };
  const gfs = isGfs(rule);
  return (
    <FormSection title={t('form.retention')}>
      <Stack>
        <Text size="xs" c="dimmed">
          {t('help.retention')}
        </Text>
        <SimpleGrid cols={{ base: 1, xs: 2 }}>
          <NumberInput
            label={t('fields.maxBackups')}
            description={t('help.zeroNoLimit')}
            min={0}
            disabled={gfs}
            {...form.getInputProps('maxBackups')}
          />
          <NumberInput
            label={t('fields.retentionDays')}
            description={t('help.zeroNoLimit')}
            min={0}
            disabled={gfs}
            {...form.getInputProps('retentionDays')}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <NumberInput label={t('fields.keepDaily')} min={0} {...form.getInputProps('keepDaily')} />
          <NumberInput label={t('fields.keepWeekly')} min={0} {...form.getInputProps('keepWeekly')} />
          <NumberInput label={t('fields.keepMonthly')} min={0} {...form.getInputProps('keepMonthly')} />
          <NumberInput label={t('fields.keepYearly')} min={0} {...form.getInputProps('keepYearly')} />
        </SimpleGrid>
        {gfs && (
          <Alert variant="light" p="xs">
            <Text size="xs">{t('help.gfsReplaces')}</Text>
          </Alert>
        )}
        <Text size="sm" fw={500}>
          {t('retention.previewTitle')}
        </Text>
        {records === null ? (
          <Text size="sm" c="dimmed">
            {t('retention.newTask')}
          </Text>
        ) : (
          <RetentionPreview records={records} rule={rule} timeZone={timeZone} />
        )}
      </Stack>
    </FormSection>
  );
}
