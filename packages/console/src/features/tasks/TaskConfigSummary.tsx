import type { ReactNode } from 'react';
import { Anchor, Badge, Card, Group, List, SimpleGrid, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { ResponseData } from '../../api/types.ts';
import { exactTime } from '../../lib/time.ts';
import { cronPreview } from './cron-preview.ts';
import { sourceKind } from './task-form-model.ts';
import { useDatabaseTypes } from './task-queries.ts';
import { placementText } from './placement-text.ts';

type Task = ResponseData<'/api/backup/tasks/{id}', 'get'>;

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <div>{children}</div>
    </Stack>
  );
}

/** A task's settings at a glance, with its next runs. */
export function TaskConfigSummary({
  task,
  timeZone,
  taskNames,
}: {
  task: Task;
  timeZone: string;
  taskNames: Map<number, string>;
}) {
  const { t, i18n } = useTranslation('tasks');
  const kind = sourceKind(task.type, useDatabaseTypes());
  const cron = cronPreview(task.cronExpr, { timeZone, count: 5 });
  const none = (
    <Text size="sm" c="dimmed">
      {t('none', { ns: 'common' })}
    </Text>
  );
  const gfs = task.keepDaily || task.keepWeekly || task.keepMonthly || task.keepYearly;
  return (
    <Card withBorder mb="md">
      <Text fw={600} component="h2" size="lg" mb="xs">
        {t('detail.configuration')}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
        <Item label={t('form.source')}>
          {kind === 'file' && (
            <List size="sm">
              {task.sourcePaths.map((p) => (
                <List.Item key={p}>
                  <Text span ff="monospace" size="sm">
                    {p}
                  </Text>
                </List.Item>
              ))}
            </List>
          )}
          {kind === 'file' && task.excludePatterns.length > 0 && (
            <Text size="xs" c="dimmed">
              {t('detail.excluding', { list: task.excludePatterns.join(', ') })}
            </Text>
          )}
          {kind === 'path' && (
            <Text size="sm" ff="monospace">
              {task.dbPath}
            </Text>
          )}
          {kind === 'server' && (
            <Text size="sm">
              {task.dbUser}@{task.dbHost}
              {task.dbPort ? `:${task.dbPort}` : ''} · {task.dbName}
            </Text>
          )}
        </Item>
        <Item label={t('fields.storageTargetIds')}>
          <Group gap={4}>
            {task.storageTargetIds.map((id, i) => (
              <Anchor key={id} component={Link} to={`/targets/${id}`} size="sm">
                {task.storageTargetNames[i] ?? `#${id}`}
              </Anchor>
            ))}
          </Group>
          {task.replicationTargetIds.length > 0 && (
            <Text size="xs" c="dimmed">
              {t('detail.replicatedTo', { list: task.replicationTargetIds.map((id) => `#${id}`).join(', ') })}
            </Text>
          )}
        </Item>
        <Item label={t('list.runsOn')}>
          <Text size="sm">{placementText(t, task)}</Text>
        </Item>
        <Item label={t('fields.cronExpr')}>
          {cron.kind === 'empty' && <Text size="sm">{t('cron.manualOnly')}</Text>}
          {cron.kind === 'invalid' && (
            <Text size="sm" c="red">
              {cron.error}
            </Text>
          )}
          {cron.kind === 'valid' && (
            <>
              <Text size="sm">
                {cron.description}{' '}
                <Text span ff="monospace" size="xs" c="dimmed">
                  ({task.cronExpr})
                </Text>
              </Text>
              {task.enabled ? (
                <List size="xs" data-testid="next-runs">
                  {cron.next.map((d) => (
                    <List.Item key={d.toISOString()}>{exactTime(d.toISOString(), i18n.language)}</List.Item>
                  ))}
                </List>
              ) : (
                <Text size="xs" c="dimmed">
                  {t('detail.disabledNoRuns')}
                </Text>
              )}
            </>
          )}
        </Item>
        <Item label={t('form.retention')}>
          <Text size="sm">
            {gfs
              ? t('detail.gfs', { d: task.keepDaily, w: task.keepWeekly, m: task.keepMonthly, y: task.keepYearly })
              : t('detail.simple', { max: task.maxBackups || '∞', days: task.retentionDays || '∞' })}
          </Text>
        </Item>
        <Item label={t('form.options')}>
          <Group gap={4}>
            <Badge variant="light" color="gray">
              {task.compression}
            </Badge>
            <Badge variant="light" color={task.encrypt ? 'green' : 'gray'}>
              {task.encrypt ? t('detail.encrypted') : t('detail.notEncrypted')}
            </Badge>
            {task.verifyEnabled && (
              <Badge variant="light">{t('detail.verify', { mode: task.verifyMode, cron: task.verifyCronExpr })}</Badge>
            )}
          </Group>
        </Item>
        <Item label={t('fields.maintenanceWindows')}>
          {task.maintenanceWindows ? (
            <Text size="sm" ff="monospace">
              {task.maintenanceWindows}
            </Text>
          ) : (
            <Text size="sm">{t('detail.always')}</Text>
          )}
        </Item>
        <Item label={t('fields.dependsOnTaskIds')}>
          {task.dependsOnTaskIds.length ? (
            <Group gap={6}>
              {task.dependsOnTaskIds.map((id) => (
                <Anchor key={id} component={Link} to={`/tasks/${id}`} size="sm">
                  {taskNames.get(id) ?? `#${id}`}
                </Anchor>
              ))}
            </Group>
          ) : (
            none
          )}
        </Item>
        <Item label={t('fields.tags')}>
          {task.tags ? (
            <Group gap={4}>
              {task.tags.split(',').map((x) => (
                <Badge key={x} size="sm" variant="light">
                  {x.trim()}
                </Badge>
              ))}
            </Group>
          ) : (
            none
          )}
        </Item>
        <Item label={t('detail.objectives')}>
          <Text size="sm">
            {t('detail.objectivesText', {
              rpo: task.slaHoursRpo || '—',
              rto: task.rtoMinutes || '—',
              fails: task.alertOnConsecutiveFails,
              timeout: task.timeoutMinutes || '∞',
            })}
          </Text>
        </Item>
      </SimpleGrid>
    </Card>
  );
}
