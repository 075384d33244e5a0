import { useState } from 'react';
import { Accordion, Button, Code, ScrollArea, SegmentedControl, Stack, Text, Title, Paper, Group } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { fetchInstallPreview, nodeKeys } from './node-queries.ts';
import { NewInstallerForm, installerBody, type InstallerChoice } from './InstallerForm.tsx';
import { InstallCommand } from './InstallCommand.tsx';

/** A remote node's installers (admin): a new one-time install command, and the preview of the script it serves. */
export function InstallerSection({ nodeId }: { nodeId: number }) {
  const { t } = useTranslation('nodes');
  const issue = useMutation({
    mutationFn: (choice: InstallerChoice) =>
      unwrap(
        api.POST('/api/nodes/{id}/install-tokens', { params: { path: { id: nodeId } }, body: installerBody(choice) }),
      ),
  });
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('installer.newInstaller')}
        </Title>
        {issue.isSuccess ? (
          <>
            <InstallCommand installer={issue.data} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => issue.reset()}>
                {t('installer.create')}
              </Button>
            </Group>
          </>
        ) : (
          <>
            <NewInstallerForm loading={issue.isPending} onCreate={(choice) => issue.mutate(choice)} />
            <ErrorAlert error={issue.error} />
          </>
        )}
        <Accordion variant="contained">
          <Accordion.Item value="preview">
            <Accordion.Control>{t('installer.preview')}</Accordion.Control>
            <Accordion.Panel>
              <InstallPreview nodeId={nodeId} />
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      </Stack>
    </Paper>
  );
}

/** GET /api/nodes/{id}/install-script-preview: the script or compose file, loaded when the panel opens. */
function InstallPreview({ nodeId }: { nodeId: number }) {
  const { t } = useTranslation('nodes');
  const [format, setFormat] = useState<'script' | 'compose'>('script');
  const query = useQuery({
    queryKey: nodeKeys.preview(nodeId, format, {}),
    queryFn: () => fetchInstallPreview(nodeId, format, {}),
    staleTime: 60_000,
  });
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        {t('installer.previewHint')}
      </Text>
      <SegmentedControl
        value={format}
        onChange={(v) => setFormat(v as 'script' | 'compose')}
        aria-label={t('installer.preview')}
        data={[
          { value: 'script', label: t('installer.previewScript') },
          { value: 'compose', label: t('installer.previewCompose') },
        ]}
      />
      <QueryState query={query}>
        {(text) => (
          <ScrollArea h={360} type="auto">
            <Code block data-testid="install-preview">
              {text}
            </Code>
          </ScrollArea>
        )}
      </QueryState>
    </Stack>
  );
}
