import { Accordion, Autocomplete, JsonInput, PasswordInput, Stack, Switch, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { splitAdvanced, type FieldSpec, type FieldValue, type FormValues } from './config-form.ts';

interface Props {
  specs: FieldSpec[];
  values: FormValues;
  errors: Record<string, string>;
  maskedFields: readonly string[];
  onChange: (key: string, value: FieldValue) => void;
}

/** A type's settings as inputs generated from its field specs: required and common ones first, the advanced ones collapsed. */
export function ConfigFields(props: Props) {
  const { t } = useTranslation('targets');
  const { main, advanced } = splitAdvanced(props.specs);
  return (
    <Stack gap="sm">
      {main.map((spec) => (
        <ConfigField key={spec.key} spec={spec} {...props} />
      ))}
      {advanced.length > 0 && (
        <Accordion variant="contained" defaultValue={advanced.some((s) => props.errors[s.key]) ? 'advanced' : null}>
          <Accordion.Item value="advanced">
            <Accordion.Control>{t('form.advanced', { count: advanced.length })}</Accordion.Control>
            <Accordion.Panel>
              <Stack gap="sm">
                {advanced.map((spec) => (
                  <ConfigField key={spec.key} spec={spec} {...props} />
                ))}
              </Stack>
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      )}
    </Stack>
  );
}

function ConfigField({ spec, values, errors, maskedFields, onChange }: Props & { spec: FieldSpec }) {
  const { t } = useTranslation('targets');
  const value = values[spec.key];
  const stored = maskedFields.includes(spec.key);
  const hints = [
    spec.help,
    stored ? t('form.storedSecret') : '',
    spec.defaultValue && spec.kind !== 'boolean' ? t('form.defaultIs', { value: spec.defaultValue }) : '',
  ]
    .filter(Boolean)
    .join(' ');
  const common = {
    label: spec.label,
    description: hints || undefined,
    error: errors[spec.key],
    required: spec.required && !stored,
    'data-field': spec.key,
    title: spec.fullHelp !== spec.help ? spec.fullHelp : undefined,
  };
  if (spec.kind === 'boolean') {
    return (
      <Switch {...common} checked={value === true} onChange={(e) => onChange(spec.key, e.currentTarget.checked)} />
    );
  }
  const text = typeof value === 'string' ? value : '';
  if (spec.kind === 'password') {
    return (
      <PasswordInput
        {...common}
        value={text}
        autoComplete="new-password"
        onChange={(e) => onChange(spec.key, e.currentTarget.value)}
      />
    );
  }
  if (spec.kind === 'json') {
    return (
      <JsonInput
        {...common}
        description={[t('form.jsonHint'), hints].filter(Boolean).join(' ')}
        value={text}
        onChange={(v) => onChange(spec.key, v)}
        autosize
        minRows={3}
        formatOnBlur
        placeholder='{"url": "https://…", "user": "…", "pass": "…"}'
      />
    );
  }
  if (spec.examples.length > 0) {
    return (
      <Autocomplete
        {...common}
        value={text}
        data={[...new Set(spec.examples)].slice(0, 50)}
        placeholder={spec.defaultValue || spec.examples[0]}
        onChange={(v) => onChange(spec.key, v)}
      />
    );
  }
  return (
    <TextInput
      {...common}
      value={text}
      placeholder={spec.defaultValue}
      onChange={(e) => onChange(spec.key, e.currentTarget.value)}
    />
  );
}
