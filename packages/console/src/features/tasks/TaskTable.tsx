import { Badge, Checkbox, Group, Switch, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { ResponseData } from '../../api/types.ts';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { NextRun } from './NextRun.tsx';
import { useTaskMutations } from './use-task-mutations.ts';
import { placementText } from './placement-text.ts';

export type TaskRow = ResponseData<'/api/backup/tasks', 'get'>[number];

/** The tasks table: selection and the enabled switch for writers only. */
export function TaskTable({
  tasks,
  selected,
  onSelect,
  canWrite,
  timeZone,
  nodeNames,
}: {
  tasks: TaskRow[];
  selected: number[];
  onSelect: (ids: number[]) => void;
  canWrite: boolean;
  timeZone: string;
  nodeNames: Map<number, string>;
}) {
  const { t } = useTranslation('tasks');
  const { toggle } = useTaskMutations();
  const all = tasks.length > 0 && tasks.every((x) => selected.includes(x.id));
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table highlightOnHover verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            {canWrite && (
              <Table.Th w={40}>
                <Checkbox
                  aria-label={t('list.selectAll')}
                  checked={all}
                  indeterminate={!all && selected.length > 0}
                  onChange={() => onSelect(all ? [] : tasks.map((x) => x.id))}
                />
              </Table.Th>
            )}
            <Table.Th>{t('fields.name')}</Table.Th>
            <Table.Th>{t('fields.type')}</Table.Th>
            <Table.Th>{t('fields.tags')}</Table.Th>
            <Table.Th>{t('list.runsOn')}</Table.Th>
            <Table.Th>{t('list.lastRun')}</Table.Th>
            <Table.Th>{t('list.nextRun')}</Table.Th>
            <Table.Th>{t('fields.enabled')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tasks.map((task) => (
            <Table.Tr key={task.id} data-testid={`task-row-${task.id}`}>
              {canWrite && (
                <Table.Td>
                  <Checkbox
                    aria-label={t('list.select', { name: task.name })}
                    checked={selected.includes(task.id)}
                    onChange={() =>
                      onSelect(
                        selected.includes(task.id) ? selected.filter((i) => i !== task.id) : [...selected, task.id],
                      )
                    }
                  />
                </Table.Td>
              )}
              <Table.Td>
                <Text component={Link} to={`/tasks/${task.id}`} size="sm" fw={500} c="var(--mantine-color-anchor)">
                  {task.name}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge variant="outline" color="gray">
                  {task.type}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {task.tags
                    .split(',')
                    .filter(Boolean)
                    .map((tag) => (
                      <Badge key={tag} size="sm" variant="light">
                        {tag.trim()}
                      </Badge>
                    ))}
                </Group>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{placementText(t, task, nodeNames)}</Text>
              </Table.Td>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  {task.lastRunAt ? <StatusBadge status={task.lastStatus} /> : null}
                  <RelativeTime value={task.lastRunAt} />
                </Group>
              </Table.Td>
              <Table.Td>
                <NextRun cronExpr={task.cronExpr} enabled={task.enabled} timeZone={timeZone} />
              </Table.Td>
              <Table.Td>
                {canWrite ? (
                  <Switch
                    checked={task.enabled}
                    aria-label={t('list.toggle', { name: task.name })}
                    disabled={toggle.isPending && toggle.variables.id === task.id}
                    onChange={(e) => toggle.mutate({ id: task.id, enabled: e.currentTarget.checked })}
                  />
                ) : (
                  <StatusBadge status={task.enabled ? 'enabled' : 'disabled'} />
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
