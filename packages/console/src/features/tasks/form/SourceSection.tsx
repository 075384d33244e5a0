import { useState } from 'react';
import { Button, Group, NumberInput, PasswordInput, SimpleGrid, Stack, TagsInput, TextInput } from '@mantine/core';
import { IconFolderOpen } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { defaultPort, sourceKind } from '../task-form-model.ts';
import { useDatabaseTypes } from '../task-queries.ts';
import type { TaskForm } from './form-types.ts';
import { FormSection } from './FormSection.tsx';
import { PathListEditor } from './PathListEditor.tsx';
import { BrowseModal } from './BrowseModal.tsx';
import { DiscoverDatabases } from './DiscoverDatabases.tsx';

/**
 * What the task backs up, by type: paths (with excludes) for `file`, a database file for
 * SQLite, a server and its databases for the others.
 */
export function SourceSection({
  form,
  browseNodeId,
  discoverNodeId,
  passwordStored,
  taskId,
}: {
  form: TaskForm;
  browseNodeId: number | null;
  discoverNodeId: number;
  passwordStored: boolean;
  taskId: number | null;
}) {
  const { t } = useTranslation('tasks');
  const [browse, setBrowse] = useState<'paths' | 'file' | null>(null);
  const drivers = useDatabaseTypes();
  const kind = sourceKind(form.values.type, drivers);
  const port = defaultPort(form.values.type, drivers);
  return (
    <FormSection title={t('form.source')}>
      {kind === 'file' && (
        <Stack>
          <PathListEditor
            label={t('fields.sourcePaths')}
            description={t('help.sourcePaths')}
            value={form.values.sourcePaths}
            onChange={(v) => form.setFieldValue('sourcePaths', v)}
            error={form.errors.sourcePaths as string | undefined}
            onBrowse={() => setBrowse('paths')}
          />
          <TagsInput
            label={t('fields.excludePatterns')}
            description={t('help.excludePatterns')}
            placeholder="*.tmp"
            {...form.getInputProps('excludePatterns')}
          />
        </Stack>
      )}
      {kind === 'path' && (
        <Group align="flex-end" gap="xs" wrap="nowrap">
          <TextInput
            style={{ flex: 1 }}
            label={t('fields.dbPath')}
            description={t('help.dbPath')}
            placeholder="/var/lib/app/app.db"
            withAsterisk
            {...form.getInputProps('dbPath')}
          />
          <Button variant="default" leftSection={<IconFolderOpen size={14} />} onClick={() => setBrowse('file')}>
            {t('form.browse')}
          </Button>
        </Group>
      )}
      {kind === 'server' && (
        <Stack>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label={t('fields.dbHost')}
              withAsterisk
              placeholder="127.0.0.1"
              {...form.getInputProps('dbHost')}
            />
            <NumberInput
              label={t('fields.dbPort')}
              min={0}
              max={65535}
              placeholder={port ? String(port) : undefined}
              description={port ? t('help.dbPort', { port }) : undefined}
              {...form.getInputProps('dbPort')}
            />
            <TextInput label={t('fields.dbUser')} withAsterisk autoComplete="off" {...form.getInputProps('dbUser')} />
            <PasswordInput
              label={t('fields.dbPassword')}
              autoComplete="new-password"
              description={passwordStored ? t('help.dbPasswordStored') : undefined}
              placeholder={passwordStored ? '********' : undefined}
              {...form.getInputProps('dbPassword')}
            />
          </SimpleGrid>
          <TagsInput
            label={t('fields.dbNames')}
            description={t('help.dbNames')}
            withAsterisk
            {...form.getInputProps('dbNames')}
          />
          <DiscoverDatabases form={form} nodeId={discoverNodeId} taskId={taskId} />
        </Stack>
      )}
      <BrowseModal
        opened={browse !== null}
        onClose={() => setBrowse(null)}
        nodeId={browseNodeId}
        multiple={browse === 'paths'}
        files={browse === 'file'}
        onPick={(paths) => {
          if (browse === 'file') form.setFieldValue('dbPath', paths[0] ?? '');
          else
            form.setFieldValue('sourcePaths', [
              ...new Set([...form.values.sourcePaths.filter((p) => p.trim() !== ''), ...paths]),
            ]);
        }}
      />
    </FormSection>
  );
}
