import { Checkbox, NumberInput, PasswordInput, Select, Stack, Switch, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { SECRET_MASK, type SettingSpec } from './settings-layout.ts';
import { humanise } from '../notifications/channel-form.ts';

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

/** One setting with the input its kind needs; text for any key the console does not know. */
export function SettingInput({ spec, value, stored, error, disabled, onChange, clear, onClear }: SettingInputProps) {
  const { t, i18n } = useTranslation('settings');
  const known = i18n.exists(`keys.${spec.key}.label`, { ns: 'settings' });
  const label = known ? t(`keys.${spec.key as KnownKey}.label`) : humanise(spec.key);
  const help = known ? t(`keys.${spec.key as KnownKey}.help`) : spec.key;
  const common = { label, description: help, error, disabled, 'data-setting': spec.key };
  switch (spec.kind) {
    case 'boolean':
      return <Switch {...common} checked={value === 'true'} onChange={(e) => onChange(String(e.currentTarget.checked))} />;
    case 'integer':
      return (
        <NumberInput {...common} value={value} min={spec.min} max={spec.max} allowDecimal={false} allowNegative={false} onChange={(v) => onChange(String(v))} />
      );
    case 'timezone':
      return (
        <Select {...common} searchable clearable data={ZONES} value={value || null} placeholder={t('timezoneServer')} onChange={(v) => onChange(v ?? '')} />
      );
    case 'secret':
      return (
        <Stack gap={4}>
          <PasswordInput {...common} autoComplete="new-password" description={stored === SECRET_MASK ? `${help} ${t('secretStored')}` : help}
            placeholder={stored === SECRET_MASK ? SECRET_MASK : undefined} value={value} disabled={disabled || clear} onChange={(e) => onChange(e.currentTarget.value)} />
          {stored === SECRET_MASK && !disabled && <Checkbox size="xs" label={t('clearSecret')} checked={clear} onChange={(e) => onClear(e.currentTarget.checked)} />}
        </Stack>
      );
    default:
      return <TextInput {...common} inputMode={spec.kind === 'url' ? 'url' : undefined} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
  }
}
