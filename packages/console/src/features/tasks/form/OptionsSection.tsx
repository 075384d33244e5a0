import { NumberInput, Select, SimpleGrid, Stack, Switch } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TaskForm } from './form-types.ts';
import { FormSection } from './FormSection.tsx';
import { CronField } from './CronField.tsx';

/** Artifact options (compression, encryption, backup mode), scheduled verification, alerting and objectives. */
export function OptionsSection({ form, timeZone }: { form: TaskForm; timeZone: string }) {
  const { t } = useTranslation('tasks');
  // Differential mode stores what changed since a full; only file tasks have files to compare.
  const files = form.values.type === 'file';
  const differential = files && form.values.backupMode === 'differential';
  return (
    <FormSection title={t('form.options')}>
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t('fields.compression')}
            allowDeselect={false}
            data={['zstd', 'gzip', 'none']}
            {...form.getInputProps('compression')}
          />
          <Switch
            mt={{ sm: 'lg' }}
            label={t('fields.encrypt')}
            description={t('help.encrypt')}
            {...form.getInputProps('encrypt', { type: 'checkbox' })}
          />
        </SimpleGrid>
        <Switch
          label={t('fields.verifyEnabled')}
          description={t('help.verifyEnabled')}
          {...form.getInputProps('verifyEnabled', { type: 'checkbox' })}
        />
        {form.values.verifyEnabled && (
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <CronField
              label={t('fields.verifyCronExpr')}
              description={t('help.verifyCronExpr')}
              value={form.values.verifyCronExpr}
              timeZone={timeZone}
              onChange={(v) => form.setFieldValue('verifyCronExpr', v)}
              serverError={form.errors.verifyCronExpr as string | undefined}
              emptyText={t('cron.verifyRequired')}
            />
            <Select
              label={t('fields.verifyMode')}
              allowDeselect={false}
              description={t('help.verifyMode')}
              data={[
                { value: 'quick', label: t('verifyModes.quick') },
                { value: 'deep', label: t('verifyModes.deep') },
              ]}
              {...form.getInputProps('verifyMode')}
            />
          </SimpleGrid>
        )}
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NumberInput
            label={t('fields.slaHoursRpo')}
            description={t('help.slaHoursRpo')}
            min={0}
            {...form.getInputProps('slaHoursRpo')}
          />
          <NumberInput
            label={t('fields.rtoMinutes')}
            description={t('help.rtoMinutes')}
            min={0}
            {...form.getInputProps('rtoMinutes')}
          />
          <NumberInput
            label={t('fields.alertOnConsecutiveFails')}
            description={t('help.alertOnConsecutiveFails')}
            min={1}
            {...form.getInputProps('alertOnConsecutiveFails')}
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t('fields.backupMode')}
            description={
              files
                ? t(differential ? 'help.backupModeDifferential' : 'help.backupModeFull')
                : t('help.backupModeDatabase')
            }
            allowDeselect={false}
            disabled={!files}
            data={[
              { value: 'full', label: t('form.full') },
              { value: 'differential', label: t('form.differential') },
              { value: 'repository', label: t('form.repository') },
            ]}
            {...form.getInputProps('backupMode')}
          />
          {differential && (
            <NumberInput
              label={t('fields.diffFullIntervalDays')}
              description={t('help.diffFullIntervalDays')}
              min={1}
              {...form.getInputProps('diffFullIntervalDays')}
            />
          )}
        </SimpleGrid>
      </Stack>
    </FormSection>
  );
}

/** The help text of a backup mode. */
function modeHelp(mode: string): 'help.backupModeDifferential' | 'help.backupModeRepository' | 'help.backupModeFull' {
  return mode === 'differential'
    ? 'help.backupModeDifferential'
    : mode === 'repository'
      ? 'help.backupModeRepository'
      : 'help.backupModeFull';
}
