import { useState } from 'react';
import { Button, Checkbox, Group, Stack, Text } from '@mantine/core';
import { IconDatabaseSearch } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client.ts';
import { ErrorAlert } from '../../../components/ErrorAlert.tsx';
import { formatBytes } from '../../../lib/time.ts';
import type { TaskForm } from './form-types.ts';

/**
 * "Discover": lists the server's databases (POST /api/database/discover, from the task's node) to
 * tick the ones to back up. Editing a stored task, an empty password field means its stored
 * password (`taskId`; the server uses it for the task's own host and user only).
 */
export function DiscoverDatabases({ form, nodeId, taskId }: { form: TaskForm; nodeId: number; taskId: number | null }) {
  const { t } = useTranslation('tasks');
  const [showSystem, setShowSystem] = useState(false);
  const v = form.values;
  const discover = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/database/discover', {
          body: {
            type: v.type,
            nodeId,
            ...(v.dbHost ? { host: v.dbHost } : {}),
            ...(v.dbPort ? { port: v.dbPort } : {}),
            ...(v.dbUser ? { user: v.dbUser } : {}),
            ...(v.dbPassword ? { password: v.dbPassword } : {}),
            ...(taskId !== null ? { taskId } : {}),
          },
        }),
      ),
  });
  const found = discover.data?.details.filter((d) => showSystem || !d.system) ?? [];
  const toggle = (name: string) =>
    form.setFieldValue(
      'dbNames',
      v.dbNames.includes(name) ? v.dbNames.filter((n) => n !== name) : [...v.dbNames, name],
    );
  return (
    <Stack gap="xs">
      <Group gap="xs">
        <Button
          size="xs"
          variant="default"
          leftSection={<IconDatabaseSearch size={14} />}
          loading={discover.isPending}
          onClick={() => discover.mutate()}
        >
          {t('form.discover')}
        </Button>
        {discover.isSuccess && (
          <Checkbox
            size="xs"
            label={t('form.showSystem')}
            checked={showSystem}
            onChange={(e) => setShowSystem(e.currentTarget.checked)}
          />
        )}
      </Group>
      {discover.isError && <ErrorAlert error={discover.error} title={t('form.discoverFailed')} />}
      {discover.isSuccess &&
        (found.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('form.discoverNone')}
          </Text>
        ) : (
          <Stack gap={4} role="group" aria-label={t('form.discovered')}>
            {found.map((d) => (
              <Checkbox
                key={d.name}
                checked={v.dbNames.includes(d.name)}
                onChange={() => toggle(d.name)}
                label={
                  <>
                    {d.name}
                    {d.sizeBytes !== null && (
                      <Text span size="xs" c="dimmed">
                        {' '}
                        · {formatBytes(d.sizeBytes)}
                      </Text>
                    )}
                    {d.system && (
                      <Text span size="xs" c="dimmed">
                        {' '}
                        · {t('form.system')}
                      </Text>
                    )}
                  </>
                }
              />
            ))}
          </Stack>
        ))}
    </Stack>
  );
}
