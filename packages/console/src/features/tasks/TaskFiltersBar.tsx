import { Group, Select, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { TaskFilters } from './task-filters.ts';

export interface NodeOption {
  value: string;
  label: string;
}

/** The list's filters: name search, type, tag, enabled, node (or pool). */
export function TaskFiltersBar({
  filters,
  onChange,
  types,
  tags,
  nodes,
}: {
  filters: TaskFilters;
  onChange: (f: TaskFilters) => void;
  types: string[];
  tags: string[];
  nodes: NodeOption[];
}) {
  const { t } = useTranslation('tasks');
  return (
    <Group gap="xs" mb="sm" wrap="wrap" align="flex-end">
      <TextInput
        label={t('filters.search')}
        placeholder={t('filters.searchPlaceholder')}
        leftSection={<IconSearch size={14} />}
        value={filters.q}
        onChange={(e) => onChange({ ...filters, q: e.currentTarget.value })}
        w={{ base: '100%', sm: 220 }}
      />
      <Select
        label={t('filters.type')}
        placeholder={t('filters.any')}
        clearable
        data={types}
        value={filters.type}
        onChange={(v) => onChange({ ...filters, type: v })}
        w={{ base: '100%', sm: 150 }}
      />
      <Select
        label={t('filters.tag')}
        placeholder={t('filters.any')}
        clearable
        searchable
        data={tags}
        value={filters.tag}
        onChange={(v) => onChange({ ...filters, tag: v })}
        w={{ base: '100%', sm: 150 }}
      />
      <Select
        label={t('filters.enabled')}
        data={[
          { value: 'all', label: t('filters.all') },
          { value: 'enabled', label: t('filters.onlyEnabled') },
          { value: 'disabled', label: t('filters.onlyDisabled') },
        ]}
        value={filters.enabled}
        onChange={(v) => onChange({ ...filters, enabled: v === 'enabled' || v === 'disabled' ? v : 'all' })}
        allowDeselect={false}
        w={{ base: '100%', sm: 140 }}
      />
      <Select
        label={t('filters.node')}
        placeholder={t('filters.any')}
        clearable
        searchable
        data={nodes}
        value={filters.node}
        onChange={(v) => onChange({ ...filters, node: v })}
        w={{ base: '100%', sm: 180 }}
      />
    </Group>
  );
}
