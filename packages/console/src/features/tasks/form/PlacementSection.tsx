import { Autocomplete, MultiSelect, SegmentedControl, Select, SimpleGrid, Stack, Input } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Placement } from '../task-form-model.ts';
import type { TaskForm } from './form-types.ts';
import { FormSection } from './FormSection.tsx';

interface Option {
  value: string;
  label: string;
}

/** Where backups go (storage and replication targets) and where the task runs (master, a node, a label pool). */
export function PlacementSection({
  form,
  targets,
  nodes,
  labels,
}: {
  form: TaskForm;
  targets: Option[];
  nodes: Option[];
  labels: string[];
}) {
  const { t } = useTranslation('tasks');
  const v = form.values;
  const replicationOptions = targets.filter((o) => !v.storageTargetIds.includes(o.value));
  return (
    <FormSection title={t('form.placement')}>
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <MultiSelect
            label={t('fields.storageTargetIds')}
            description={t('help.storageTargetIds')}
            data={targets}
            withAsterisk
            searchable
            {...form.getInputProps('storageTargetIds')}
          />
          <MultiSelect
            label={t('fields.replicationTargetIds')}
            description={t('help.replicationTargetIds')}
            data={replicationOptions}
            searchable
            clearable
            {...form.getInputProps('replicationTargetIds')}
          />
        </SimpleGrid>
        <Input.Wrapper label={t('fields.placement')} description={t('help.placement')}>
          <SegmentedControl
            mt={4}
            fullWidth
            aria-label={t('fields.placement')}
            value={v.placement}
            onChange={(p) => form.setFieldValue('placement', p as Placement)}
            data={[
              { value: 'master', label: t('placement.master') },
              { value: 'node', label: t('placement.node') },
              { value: 'pool', label: t('placement.pool') },
            ]}
          />
        </Input.Wrapper>
        {v.placement === 'node' && (
          <Select
            label={t('fields.nodeId')}
            data={nodes}
            searchable
            withAsterisk
            nothingFoundMessage={t('form.noNodes')}
            {...form.getInputProps('nodeId')}
          />
        )}
        {v.placement === 'pool' && (
          <Autocomplete
            label={t('fields.nodeLabel')}
            description={t('help.nodeLabel')}
            data={labels}
            withAsterisk
            {...form.getInputProps('nodeLabel')}
          />
        )}
      </Stack>
    </FormSection>
  );
}
