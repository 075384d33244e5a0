import type { ReactNode } from 'react';
import { Alert, Badge, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { parseLabels } from './node-form.ts';
import type { NodeView } from './node-queries.ts';

/** A node at a glance: status and health, identity, work, limits, labels, its last error. */
export function NodeOverview({ node }: { node: NodeView }) {
  const { t } = useTranslation('nodes');
  const { t: tc } = useTranslation();
  const labels = parseLabels(node.labels);
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="sm">
        {t('detail.overview')}
      </Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="sm">
        <Item label={t('detail.status')}>
          <Group gap={4}>
            <StatusBadge status={node.status} />
            {node.health !== node.status && <StatusBadge status={node.health} />}
          </Group>
        </Item>
        <Item label={t('detail.lastSeen')}>
          <RelativeTime value={node.lastSeen} />
        </Item>
        <Item label={t('detail.version')}>
          <Text size="sm">{node.agentVersion || tc('unknown')}</Text>
        </Item>
        <Item label={t('detail.host')}>
          <Text size="sm">{node.hostname || '—'}</Text>
        </Item>
        <Item label={t('detail.ip')}>
          <Text size="sm">{node.ipAddress || '—'}</Text>
        </Item>
        <Item label={t('detail.platform')}>
          <Text size="sm">{[node.os, node.arch].filter(Boolean).join(' / ') || '—'}</Text>
        </Item>
        <Item label={t('detail.running')}>
          <Text size="sm">{node.runningTasks}</Text>
        </Item>
        <Item label={t('detail.queue')}>
          <Text size="sm">
            {node.queue.pending} / {node.queue.dispatched}
          </Text>
        </Item>
        <Item label={t('detail.timeouts')}>
          <Text size="sm">{node.queue.timeouts}</Text>
        </Item>
        {node.queue.oldestActiveAt && (
          <Item label={t('detail.oldest')}>
            <RelativeTime value={node.queue.oldestActiveAt} />
          </Item>
        )}
        {!node.isLocal && (
          <Item label={t('detail.maxConcurrent')}>
            <Text size="sm">{node.maxConcurrent === 0 ? t('detail.unlimited') : node.maxConcurrent}</Text>
          </Item>
        )}
        {!node.isLocal && (
          <Item label={t('detail.bandwidth')}>
            <Text size="sm">{node.bandwidthLimit ? `${node.bandwidthLimit}/s` : t('detail.noLimit')}</Text>
          </Item>
        )}
        <Item label={t('detail.labels')}>
          <Group gap={4}>
            {labels.length ? (
              labels.map((l) => (
                <Badge key={l} variant="light" size="sm" tt="none">
                  {l}
                </Badge>
              ))
            ) : (
              <Text size="sm" c="dimmed">
                {tc('none')}
              </Text>
            )}
          </Group>
        </Item>
        <Item label={t('detail.created')}>
          <RelativeTime value={node.createdAt} />
        </Item>
      </SimpleGrid>
      {node.lastError && (
        <Alert color="orange" mt="md" title={t('detail.lastError')}>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {node.lastError}
          </Text>
        </Alert>
      )}
    </Paper>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <div>{children}</div>
    </Stack>
  );
}
