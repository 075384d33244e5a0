import { Checkbox, NumberInput, PasswordInput, Select, Stack, Switch, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { SECRET_MASK, type SettingSpec } from './settings-layout.ts';
import { humanise } from '../../lib/config-text.ts';

const ZONES: string[] = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
})();

export interface SettingInputProps {
  spec: SettingSpec;
  value: string;
  stored: string;
  error?: string;
  disabled: boolean;
  onChange: (value: string) => void;
  clear: boolean;
  onClear: (clear: boolean) => void;
}

type KnownKey = keyof typeof import('../../i18n/en/settings.ts').default.keys;

/**
 * One setting with the input its catalogue kind needs, the server's description as help, and its
 * default; a setting the server does not support yet stays at its default (any other value is refused).
 */
export function SettingInput({ spec, value, stored, error, disabled, onChange, clear, onClear }: SettingInputProps) {
  const { t, i18n } = useTranslation('settings');
  const label = i18n.exists(`keys.${spec.key}`, { ns: 'settings' })
    ? t(`keys.${spec.key as KnownKey}`)
    : humanise(spec.key);
  const defaultText =
    spec.default === undefined || spec.default === '' || spec.secret
      ? ''
      : spec.kind === 'boolean'
        ? t(spec.default === 'true' ? 'defaultOn' : 'defaultOff')
        : t('defaultValue', { value: spec.default });
  const help = [
    spec.description || spec.key,
    spec.kind === 'rate' ? t('rateHint') : '',
    defaultText,
    spec.notYet ? t('notYet', { reason: spec.notYet }) : '',
  ]
    .filter(Boolean)
    .join(' ');
  const off = disabled || spec.notYet !== undefined;
  const common = { label, description: help, error, disabled: off, 'data-setting': spec.key };
  const placeholder = spec.default || undefined;
  if (spec.secret) {
    return (
      <Stack gap={4}>
        <PasswordInput
          {...common}
          autoComplete="new-password"
          description={stored === SECRET_MASK ? `${help} ${t('secretStored')}` : help}
          placeholder={stored === SECRET_MASK ? SECRET_MASK : undefined}
          value={value}
          disabled={off || clear}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
        {stored === SECRET_MASK && !off && (
          <Checkbox
            size="xs"
            label={t('clearSecret')}
            checked={clear}
            onChange={(e) => onClear(e.currentTarget.checked)}
          />
        )}
      </Stack>
    );
  }
  switch (spec.kind) {
    case 'boolean':
      return (
        <Switch {...common} checked={value === 'true'} onChange={(e) => onChange(String(e.currentTarget.checked))} />
      );
    case 'integer':
      // The range is the server's to check (the catalogue does not give it); its message shows at the field.
      return (
        <NumberInput
          {...common}
          placeholder={placeholder}
          value={value}
          min={0}
          allowDecimal={false}
          allowNegative={false}
          onChange={(v) => onChange(String(v))}
        />
      );
    case 'timezone':
      return (
        <Select
          {...common}
          searchable
          clearable
          data={ZONES}
          value={value || null}
          placeholder={placeholder ?? t('timezoneServer')}
          onChange={(v) => onChange(v ?? '')}
        />
      );
    default:
      return (
        <TextInput
          {...common}
          inputMode={spec.kind === 'url' ? 'url' : undefined}
          placeholder={placeholder}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
  }
}
