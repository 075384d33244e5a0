import { MultiSelect, Select, Stack, Switch, Text, TextInput, Group } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import {
  effectiveEvents,
  eventTypeOptions,
  unknownEventTypes,
  type ChannelCommon,
  type CommonError,
} from './channel-settings.ts';
import { eventTypesQuery } from './queries.ts';

export interface CommonFieldsProps {
  value: ChannelCommon;
  errors: Partial<Record<keyof ChannelCommon, CommonError>>;
  disabled: boolean;
  onChange: (patch: Partial<ChannelCommon>) => void;
}

/** The channel's own settings besides its type's config: name, state, subscriptions, digest. */
export function CommonFields({ value, errors, disabled, onChange }: CommonFieldsProps) {
  const { t } = useTranslation('notifications');
  const err = (k: keyof ChannelCommon) => (errors[k] ? t(`errors.${errors[k]}`) : undefined);
  const receives = effectiveEvents(value);
  const catalogue = useQuery(eventTypesQuery);
  const options = eventTypeOptions(catalogue.data ?? [], value.eventTypes);
  const unknown = catalogue.data ? unknownEventTypes(catalogue.data, value.eventTypes) : [];
  return (
    <Stack gap="sm">
      <TextInput
        label={t('fields.name')}
        required
        maxLength={100}
        value={value.name}
        error={err('name')}
        disabled={disabled}
        onChange={(e) => onChange({ name: e.currentTarget.value })}
        data-field="name"
      />
      <Switch
        label={t('fields.enabled')}
        description={t('fields.enabledHint')}
        checked={value.enabled}
        disabled={disabled}
        onChange={(e) => onChange({ enabled: e.currentTarget.checked })}
      />
      <Group gap="lg">
        <Switch
          label={t('fields.onSuccess')}
          checked={value.onSuccess}
          disabled={disabled}
          onChange={(e) => onChange({ onSuccess: e.currentTarget.checked })}
        />
        <Switch
          label={t('fields.onFailure')}
          checked={value.onFailure}
          disabled={disabled}
          onChange={(e) => onChange({ onFailure: e.currentTarget.checked })}
        />
      </Group>
      <Text size="xs" c="dimmed">
        {t('fields.outcomeHint')}
      </Text>
      <MultiSelect
        label={t('fields.eventTypes')}
        description={t('fields.eventTypesHint')}
        placeholder={t('fields.eventTypesPlaceholder')}
        data={options}
        value={value.eventTypes}
        disabled={disabled}
        searchable
        clearable
        hidePickedOptions={false}
        maxDropdownHeight={320}
        error={unknown.length ? t('fields.eventTypesUnknown', { types: unknown.join(', ') }) : undefined}
        renderOption={({ option }) => {
          const description = options.find((o) => o.value === option.value)?.description;
          return (
            <Stack gap={0}>
              <Text size="sm">{option.label}</Text>
              {description && (
                <Text size="xs" c="dimmed">
                  {description}
                </Text>
              )}
            </Stack>
          );
        }}
        onChange={(eventTypes) => onChange({ eventTypes })}
        data-field="eventTypes"
      />
      <ErrorAlert error={catalogue.error} />
      <Text size="sm" c={receives.length ? undefined : 'orange'} role="status">
        {receives.length ? t('fields.receives', { events: receives.join(', ') }) : t('fields.receivesNothing')}
      </Text>
      <Group grow align="flex-start" wrap="wrap">
        <Select
          label={t('fields.digest')}
          allowDeselect={false}
          disabled={disabled}
          value={value.digest || 'immediate'}
          data={[
            { value: 'immediate', label: t('fields.digestImmediate') },
            { value: 'daily', label: t('fields.digestDaily') },
          ]}
          onChange={(v) => onChange({ digest: v === 'daily' ? 'daily' : '' })}
          miw={200}
        />
        <TextInput
          label={t('fields.digestTime')}
          description={t('fields.digestTimeHint')}
          value={value.digestTime}
          error={err('digestTime')}
          disabled={disabled || value.digest !== 'daily'}
          onChange={(e) => onChange({ digestTime: e.currentTarget.value })}
          miw={200}
        />
      </Group>
    </Stack>
  );
}
