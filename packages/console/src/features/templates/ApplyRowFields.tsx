import { ActionIcon, Group, Paper, Select, SimpleGrid, TagsInput, Text, TextInput } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { ApplyRow } from './apply-variables.ts';
import type { Option } from './use-references.ts';

export interface ApplyRowFieldsProps {
  index: number;
  row: ApplyRow;
  isFile: boolean;
  /** Which database overrides the template's type takes (its driver reads dbHost; it names databases). */
  dbHost: boolean;
  dbName: boolean;
  nodes: Option[];
  nameMissing: boolean;
  onChange: (patch: Partial<ApplyRow>) => void;
  onRemove?: () => void;
}

/** One task to create: its name and the overrides the apply route takes (only those that fit the template's type). */
export function ApplyRowFields({
  index,
  row,
  isFile,
  dbHost,
  dbName,
  nodes,
  nameMissing,
  onChange,
  onRemove,
}: ApplyRowFieldsProps) {
  const { t } = useTranslation('templates');
  return (
    <Paper withBorder p="sm">
      <Group justify="space-between" mb={4}>
        <Text fw={600} size="sm">
          {t('apply.row', { n: index + 1 })}
        </Text>
        {onRemove && (
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={t('apply.removeRow', { n: index + 1 })}
            onClick={onRemove}
          >
            <IconTrash size={16} />
          </ActionIcon>
        )}
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
        <TextInput
          label={t('apply.name')}
          required
          maxLength={100}
          value={row.name}
          error={nameMissing ? t('errors.required') : undefined}
          onChange={(e) => onChange({ name: e.currentTarget.value })}
          data-autofocus={index === 0 || undefined}
        />
        <Select
          label={t('apply.nodeId')}
          placeholder={t('apply.keepNode')}
          clearable
          searchable
          data={[{ value: '0', label: t('hints.master') }, ...nodes]}
          value={row.nodeId || null}
          onChange={(v) => onChange({ nodeId: v ?? '' })}
        />
        {isFile ? (
          <TagsInput
            label={t('apply.sourcePaths')}
            description={t('hints.list')}
            value={row.sourcePaths}
            onChange={(sourcePaths) => onChange({ sourcePaths })}
          />
        ) : (
          <>
            {dbHost && (
              <TextInput
                label={t('apply.dbHost')}
                value={row.dbHost}
                onChange={(e) => onChange({ dbHost: e.currentTarget.value })}
              />
            )}
            {dbName && (
              <TextInput
                label={t('apply.dbName')}
                value={row.dbName}
                onChange={(e) => onChange({ dbName: e.currentTarget.value })}
              />
            )}
          </>
        )}
        <TagsInput
          label={t('apply.tags')}
          description={t('hints.list')}
          value={row.tags}
          onChange={(tags) => onChange({ tags })}
        />
      </SimpleGrid>
    </Paper>
  );
}
