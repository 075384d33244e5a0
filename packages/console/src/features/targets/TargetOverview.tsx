import { Badge, Code, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import type { TargetDetail } from './TargetForm.tsx';

/** A target at a glance: type, state, health, last test; with `showConfig` (viewers) its settings, secrets masked. */
export function TargetOverview({ target, showConfig }: { target: TargetDetail; showConfig: boolean }) {
  const { t } = useTranslation('targets');
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="sm">
        {t('detail.overview')}
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <Item label={t('detail.type')}>
          <Badge variant="default" tt="none">
            {target.type}
          </Badge>
        </Item>
        <Item label={t('detail.status')}>
          <StatusBadge status={target.enabled ? 'enabled' : 'disabled'} />
        </Item>
        <Item label={t('detail.health')}>
          <Group gap="xs">
            <StatusBadge status={target.healthStatus || 'unknown'} />
            <RelativeTime value={target.healthCheckedAt} size="xs" />
          </Group>
          {target.healthMessage && (
            <Text size="xs" c="dimmed">
              {target.healthMessage}
            </Text>
          )}
        </Item>
        <Item label={t('detail.lastTest')}>
          <Group gap="xs">
            <StatusBadge status={target.lastTestStatus} />
            <RelativeTime value={target.lastTestedAt} size="xs" />
          </Group>
          {target.lastTestMessage && (
            <Text size="xs" c="dimmed">
              {target.lastTestMessage}
            </Text>
          )}
        </Item>
        <Item label={t('detail.created')}>
          <RelativeTime value={target.createdAt} />
        </Item>
        <Item label={t('detail.updated')}>
          <RelativeTime value={target.updatedAt} />
        </Item>
      </SimpleGrid>
      {target.description && (
        <Text size="sm" mt="sm">
          {target.description}
        </Text>
      )}
      {showConfig && (
        <Table.ScrollContainer minWidth={320} mt="md">
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('detail.setting')}</Table.Th>
                <Table.Th>{t('detail.value')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {Object.entries(target.config).map(([key, value]) => (
                <Table.Tr key={key}>
                  <Table.Td>
                    <Code>{key}</Code>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ wordBreak: 'break-all' }}>
                      {typeof value === 'string' ? value : JSON.stringify(value)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
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
