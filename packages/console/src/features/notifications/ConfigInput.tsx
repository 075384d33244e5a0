import { JsonInput, NumberInput, PasswordInput, Select, Switch, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { FieldError, FieldValue, InputSpec } from './channel-form.ts';

export interface ConfigInputProps {
  spec: InputSpec;
  value: FieldValue | undefined;
  onChange: (value: FieldValue) => void;
  error?: FieldError;
  /** A secret the server holds (shown empty: left empty, it is kept). */
  stored: boolean;
  disabled: boolean;
}

/** One field of a channel type's config, as the catalogue describes it. */
export function ConfigInput({ spec, value, onChange, error, stored, disabled }: ConfigInputProps) {
  const { t } = useTranslation('notifications');
  const common = {
    label: spec.label,
    description: stored ? [spec.help, t('fields.secretKeep')].filter(Boolean).join(' ') : spec.help || undefined,
    required: spec.required && !stored,
    error: error ? t(`errors.${error}`) : undefined,
    disabled,
    'data-field': spec.key,
  };
  const placeholder = spec.defaultValue ? t('fields.defaultPlaceholder', { value: spec.defaultValue }) : undefined;
  const text = value === undefined || typeof value === 'boolean' ? '' : String(value);
  switch (spec.kind) {
    case 'boolean':
      return <Switch {...common} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />;
    case 'password':
      return (
        <PasswordInput
          {...common}
          autoComplete="new-password"
          placeholder={stored ? '********' : placeholder}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          data={spec.choices}
          value={text || null}
          clearable={!spec.required}
          onChange={(v) => onChange(v ?? '')}
        />
      );
    case 'integer':
    case 'number':
      return (
        <NumberInput
          {...common}
          placeholder={placeholder}
          value={typeof value === 'number' ? value : text}
          onChange={onChange}
          allowDecimal={spec.kind === 'number'}
          min={spec.min}
          max={spec.max}
        />
      );
    case 'json':
      return (
        <JsonInput
          {...common}
          description={[spec.help, t('fields.jsonHint')].filter(Boolean).join(' — ')}
          autosize
          minRows={3}
          formatOnBlur
          value={text}
          onChange={onChange}
        />
      );
    default:
      return (
        <TextInput
          {...common}
          placeholder={placeholder}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
  }
}
