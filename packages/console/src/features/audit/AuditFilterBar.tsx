import { useState } from 'react';
import { Autocomplete, Button, Group, SimpleGrid, TextInput } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useTranslation } from 'react-i18next';
import { KNOWN_CATEGORIES, NO_FILTERS, rangeInverted, type AuditFilters, type TextFilter } from './audit-filters.ts';

/** The list route's filters; applied on submit (Enter or the button), so typing does not query on each key. */
export function AuditFilterBar({ value, onApply }: { value: AuditFilters; onApply: (filters: AuditFilters) => void }) {
  const { t } = useTranslation('audit');
  const [draft, setDraft] = useState(value);
  const set = (patch: Partial<AuditFilters>) => setDraft((d) => ({ ...d, ...patch }));
  const text = (key: Exclude<TextFilter, 'category'>, extra: { description?: string } = {}) => (
    <TextInput
      label={t(`filters.${key}`)}
      value={draft[key]}
      onChange={(e) => set({ [key]: e.currentTarget.value })}
      {...extra}
    />
  );
  const inverted = rangeInverted(draft);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!inverted) onApply(draft);
      }}
    >
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm" mb="sm">
        <Autocomplete
          label={t('filters.category')}
          data={KNOWN_CATEGORIES}
          value={draft.category}
          onChange={(category) => set({ category })}
        />
        {text('action')}
        {text('username')}
        {text('keyword', { description: t('filters.keywordHint') })}
        {text('targetType')}
        {text('targetId')}
        <DatePickerInput
          type="range"
          label={t('filters.dates')}
          placeholder={t('filters.datesPlaceholder')}
          clearable
          allowSingleDateInRange
          value={[draft.from || null, draft.to || null]}
          error={inverted ? t('filters.inverted') : undefined}
          onChange={([from, to]) =>
            set({ from: from ? String(from).slice(0, 10) : '', to: to ? String(to).slice(0, 10) : '' })
          }
        />
      </SimpleGrid>
      <Group gap="xs" mb="md">
        <Button type="submit" disabled={inverted}>
          {t('filters.apply')}
        </Button>
        <Button
          variant="default"
          onClick={() => {
            setDraft(NO_FILTERS);
            onApply(NO_FILTERS);
          }}
        >
          {t('filters.reset')}
        </Button>
      </Group>
    </form>
  );
}
