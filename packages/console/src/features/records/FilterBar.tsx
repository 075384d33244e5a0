import { Button, Group, NumberInput, Select } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useTranslation } from 'react-i18next';
import { RUN_STATES, NO_FILTERS, type ListFilters, type RunState } from './list-filters.ts';
import { useNodeOptions, useStorageTargets, useTaskOptions } from './use-options.ts';

export type FilterField = 'task' | 'status' | 'node' | 'dates' | 'backupRecord' | 'destTarget';

const idOf = (v: string | null): number | null => (v === null || v === '' ? null : Number(v));

/** The filters a record list's route takes (each list names its own), stacked on narrow screens. */
export function FilterBar({
  filters,
  onChange,
  fields,
}: {
  filters: ListFilters;
  onChange: (patch: Partial<ListFilters>) => void;
  fields: readonly FilterField[];
}) {
  const { t } = useTranslation('records');
  const has = (f: FilterField) => fields.includes(f);
  const tasks = useTaskOptions();
  const nodes = useNodeOptions();
  const targets = useStorageTargets();
  const active = JSON.stringify({ ...filters, page: 1 }) !== JSON.stringify(NO_FILTERS);
  return (
    <Group gap="sm" align="flex-end" mb="md" wrap="wrap">
      {has('task') && (
        <Select
          label={t('filter.task')}
          placeholder={t('filter.anyTask')}
          clearable
          searchable
          w={{ base: '100%', sm: 220 }}
          data={tasks.data ?? []}
          value={filters.taskId === null ? null : String(filters.taskId)}
          onChange={(v) => onChange({ taskId: idOf(v) })}
        />
      )}
      {has('status') && (
        <Select
          label={t('filter.status')}
          placeholder={t('filter.anyStatus')}
          clearable
          w={{ base: '100%', sm: 160 }}
          data={RUN_STATES.map((s) => ({ value: s, label: t(`status.${s}`) }))}
          value={filters.status}
          onChange={(v) => onChange({ status: v as RunState | null })}
        />
      )}
      {has('node') && (
        <Select
          label={t('filter.node')}
          placeholder={t('filter.anyNode')}
          clearable
          searchable
          w={{ base: '100%', sm: 180 }}
          data={[
            { value: '0', label: t('filter.master') },
            ...(nodes.data ?? [])
              .filter((n) => !n.isLocal && n.id !== 0)
              .map((n) => ({ value: String(n.id), label: n.name })),
          ]}
          value={filters.nodeId === null ? null : String(filters.nodeId)}
          onChange={(v) => onChange({ nodeId: idOf(v) })}
        />
      )}
      {has('destTarget') && (
        <Select
          label={t('filter.destTarget')}
          placeholder={t('filter.anyTarget')}
          clearable
          searchable
          w={{ base: '100%', sm: 200 }}
          data={(targets.data ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
          value={filters.destTargetId === null ? null : String(filters.destTargetId)}
          onChange={(v) => onChange({ destTargetId: idOf(v) })}
        />
      )}
      {has('backupRecord') && (
        <NumberInput
          label={t('filter.backupRecord')}
          min={1}
          allowDecimal={false}
          w={{ base: '100%', sm: 150 }}
          value={filters.backupRecordId ?? ''}
          onChange={(v) => onChange({ backupRecordId: typeof v === 'number' && v >= 1 ? v : null })}
        />
      )}
      {has('dates') && (
        <DatePickerInput
          type="range"
          label={t('filter.dates')}
          placeholder={t('filter.datesPlaceholder')}
          clearable
          allowSingleDateInRange
          w={{ base: '100%', sm: 260 }}
          value={[filters.dateFrom, filters.dateTo]}
          onChange={([from, to]) =>
            onChange({ dateFrom: from ? String(from).slice(0, 10) : null, dateTo: to ? String(to).slice(0, 10) : null })
          }
        />
      )}
      {active && (
        <Button variant="subtle" onClick={() => onChange({ ...NO_FILTERS })}>
          {t('filter.clear')}
        </Button>
      )}
    </Group>
  );
}
