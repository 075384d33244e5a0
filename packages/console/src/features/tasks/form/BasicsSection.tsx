import { Select, SimpleGrid, Switch, TagsInput, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TaskForm } from './form-types.ts';
import { FormSection } from './FormSection.tsx';

/** Name, type, tags, enabled. */
export function BasicsSection({ form, types, tags }: { form: TaskForm; types: string[]; tags: string[] }) {
  const { t } = useTranslation('tasks');
  const typeOptions = [...new Set([...types, form.values.type])].map((v) => ({
    value: v,
    label: t(`types.${v}` as 'types.file', { defaultValue: v }),
  }));
  return (
    <FormSection title={t('form.basics')}>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label={t('fields.name')} required withAsterisk {...form.getInputProps('name')} />
        <Select
          label={t('fields.type')}
          data={typeOptions}
          allowDeselect={false}
          {...form.getInputProps('type')}
          description={t('help.type')}
        />
        <TagsInput label={t('fields.tags')} data={tags} description={t('help.tags')} {...form.getInputProps('tags')} />
        <Switch
          mt={{ sm: 'lg' }}
          label={t('fields.enabled')}
          description={t('help.enabled')}
          {...form.getInputProps('enabled', { type: 'checkbox' })}
        />
      </SimpleGrid>
    </FormSection>
  );
}
