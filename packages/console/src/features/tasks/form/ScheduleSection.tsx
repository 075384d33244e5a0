import { MultiSelect, NumberInput, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TaskForm } from './form-types.ts';
import { FormSection } from './FormSection.tsx';
import { CronField } from './CronField.tsx';

/** When it runs: cron, maintenance windows, time limit, tasks it waits for. */
export function ScheduleSection({
  form,
  timeZone,
  otherTasks,
}: {
  form: TaskForm;
  timeZone: string;
  otherTasks: { value: string; label: string }[];
}) {
  const { t } = useTranslation('tasks');
  return (
    <FormSection title={t('form.schedule')}>
      <Stack>
        <CronField
          label={t('fields.cronExpr')}
          description={t('help.cronExpr')}
          value={form.values.cronExpr}
          timeZone={timeZone}
          onChange={(v) => form.setFieldValue('cronExpr', v)}
          serverError={form.errors.cronExpr as string | undefined}
          emptyText={t('cron.manualOnly')}
        />
        <TextInput
          label={t('fields.maintenanceWindows')}
          description={t('help.maintenanceWindows')}
          placeholder="days=sat|sun,time=00:00-06:00; time=22:00-02:00"
          {...form.getInputProps('maintenanceWindows')}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NumberInput
            label={t('fields.timeoutMinutes')}
            description={t('help.timeoutMinutes')}
            min={0}
            max={10080}
            {...form.getInputProps('timeoutMinutes')}
          />
          <MultiSelect
            label={t('fields.dependsOnTaskIds')}
            description={t('help.dependsOnTaskIds')}
            data={otherTasks}
            searchable
            clearable
            {...form.getInputProps('dependsOnTaskIds')}
          />
        </SimpleGrid>
      </Stack>
    </FormSection>
  );
}
