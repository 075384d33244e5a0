import { useState } from 'react';
import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { isBandwidth, nodeBody, parseLabels, type NodeSettingsValues } from './node-form.ts';
import { nodeKeys, type NodeView } from './node-queries.ts';
import { NodeSettingsFields } from './NodeSettingsFields.tsx';

/** Edits what PUT /api/nodes/{id} accepts (admin). */
export function NodeEditForm({ node }: { node: NodeView }) {
  const { t } = useTranslation('nodes');
  const { t: tc } = useTranslation();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<NodeSettingsValues>({
    name: node.name,
    labels: parseLabels(node.labels),
    maxConcurrent: node.maxConcurrent,
    bandwidthLimit: node.bandwidthLimit,
  });
  const save = useMutation({
    mutationFn: () =>
      unwrap(api.PUT('/api/nodes/{id}', { params: { path: { id: node.id } }, body: nodeBody(values, node.isLocal) })),
    onSuccess: async () => {
      notifications.show({ color: 'green', message: t('form.saved') });
      await queryClient.invalidateQueries({ queryKey: nodeKeys.all });
    },
  });
  const valid = values.name.trim() !== '' && isBandwidth(values.bandwidthLimit);
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('form.editTitle')}
        </Title>
        <NodeSettingsFields
          values={values}
          onChange={setValues}
          isLocal={node.isLocal}
          nameError={values.name.trim() ? undefined : t('form.required')}
        />
        {node.isLocal && (
          <Text size="sm" c="dimmed">
            {t('form.localHint')}
          </Text>
        )}
        <ErrorAlert error={save.error} />
        <Group justify="flex-end">
          <Button loading={save.isPending} disabled={!valid} onClick={() => save.mutate()}>
            {tc('actions.save')}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
