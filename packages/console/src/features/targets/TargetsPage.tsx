import { Anchor, Badge, Button, Group, Table, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatBytes } from '../../lib/time.ts';
import { useCan } from '../../app/use-session.ts';
import { targetListQuery } from '../../api/shared-lists.ts';
import { StarButton } from './StarButton.tsx';
import { TestTargetButton } from './TestTargetButton.tsx';

/** /targets: every storage target, starred first (the API's order), with health, last test, star and test. */
export function TargetsPage() {
  const { t } = useTranslation('targets');
  const can = useCan();
  const query = useQuery(targetListQuery);
  const addButton = can('write') && (
    <Button component={Link} to="/targets/new" leftSection={<IconPlus size={16} />}>
      {t('list.add')}
    </Button>
  );
  return (
    <>
      <PageHeader title={t('list.title')} description={t('list.description')} actions={addButton} />
      <QueryState query={query}>
        {(targets) =>
          targets.length === 0 ? (
            <EmptyState title={t('list.emptyTitle')} hint={t('list.emptyHint')} action={addButton} />
          ) : (
            <Table.ScrollContainer minWidth={760}>
              <Table highlightOnHover verticalSpacing="xs">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th w={40}>
                      <VisuallyHidden>{t('list.starred')}</VisuallyHidden>
                    </Table.Th>
                    <Table.Th>{t('list.name')}</Table.Th>
                    <Table.Th>{t('list.type')}</Table.Th>
                    <Table.Th>{t('list.health')}</Table.Th>
                    <Table.Th>{t('list.lastTest')}</Table.Th>
                    <Table.Th>{t('list.quota')}</Table.Th>
                    {can('write') && <Table.Th>{t('list.actions')}</Table.Th>}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {targets.map((target) => (
                    <Table.Tr key={target.id} data-testid={`target-row-${target.id}`}>
                      <Table.Td>
                        <StarButton
                          id={target.id}
                          name={target.name}
                          starred={target.starred}
                          canWrite={can('write')}
                        />
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Anchor component={Link} to={`/targets/${target.id}`} fw={500}>
                            {target.name}
                          </Anchor>
                          {!target.enabled && (
                            <Badge color="gray" variant="outline" size="sm">
                              {t('list.disabled')}
                            </Badge>
                          )}
                        </Group>
                        {target.description && (
                          <Text size="xs" c="dimmed" lineClamp={1}>
                            {target.description}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Badge variant="default" tt="none">
                          {target.type}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Tooltip label={target.healthMessage || target.healthStatus} disabled={!target.healthMessage}>
                          <span>
                            <StatusBadge status={target.healthStatus || 'unknown'} />
                          </span>
                        </Tooltip>
                      </Table.Td>
                      <Table.Td>
                        <Tooltip label={target.lastTestMessage} disabled={!target.lastTestMessage} multiline maw={360}>
                          <Group gap={6} wrap="nowrap">
                            <StatusBadge status={target.lastTestStatus} />
                            <RelativeTime value={target.lastTestedAt} size="xs" />
                          </Group>
                        </Tooltip>
                      </Table.Td>
                      <Table.Td>{target.quotaBytes > 0 ? formatBytes(target.quotaBytes) : '—'}</Table.Td>
                      {can('write') && (
                        <Table.Td>
                          <TestTargetButton id={target.id} name={target.name} />
                        </Table.Td>
                      )}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
    </>
  );
}
