import { Accordion, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { FieldError, FieldValue, FormValues, InputSpec } from './channel-form.ts';
import { ConfigInput } from './ConfigInput.tsx';

export interface ConfigFieldsProps {
  specs: readonly InputSpec[];
  values: FormValues;
  errors: Record<string, FieldError>;
  maskedFields: readonly string[];
  disabled: boolean;
  onChange: (key: string, value: FieldValue) => void;
}

/** A channel type's fields: the main ones, then the advanced ones folded away. */
export function ConfigFields({ specs, values, errors, maskedFields, disabled, onChange }: ConfigFieldsProps) {
  const { t } = useTranslation('notifications');
  const render = (spec: InputSpec) => (
    <ConfigInput
      key={spec.key}
      spec={spec}
      value={values[spec.key]}
      error={errors[spec.key]}
      disabled={disabled}
      stored={spec.secret && maskedFields.includes(spec.key)}
      onChange={(v) => onChange(spec.key, v)}
    />
  );
  const main = specs.filter((s) => !s.advanced);
  const advanced = specs.filter((s) => s.advanced);
  // An advanced field with an error opens its section, so the error is seen.
  const open = advanced.some((s) => errors[s.key]);
  return (
    <Stack gap="sm">
      {main.map(render)}
      {advanced.length > 0 && (
        <Accordion variant="contained" key={open ? 'open' : 'closed'} defaultValue={open ? 'advanced' : null}>
          <Accordion.Item value="advanced">
            <Accordion.Control>{t('sections.advanced')}</Accordion.Control>
            <Accordion.Panel>
              <Stack gap="sm">{advanced.map(render)}</Stack>
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      )}
    </Stack>
  );
}
