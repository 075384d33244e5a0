import { Alert, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { ResponseData } from '../../api/types.ts';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { composeCommand } from './node-form.ts';
import { CopyBlock } from './CopyBlock.tsx';

export type Installer = ResponseData<'/api/nodes/{id}/install-tokens', 'post'>;

/** A fresh one-time installer: the command to run on the node, the compose variant, its expiry; shown once. */
export function InstallCommand({ installer }: { installer: Installer }) {
  const { t } = useTranslation('nodes');
  return (
    <Stack gap="sm" data-testid="install-command">
      <Alert color="yellow" icon={<IconAlertTriangle size={18} />}>
        {t('installer.once')}
      </Alert>
      <CopyBlock label={t('installer.command')} value={installer.command} testId="install-command-text" />
      <CopyBlock
        label={t('installer.compose')}
        value={composeCommand(installer.fallbackComposeUrl)}
        testId="install-compose-text"
      />
      <Text size="sm" c="dimmed">
        {t('installer.expires', { time: '' })}
        <RelativeTime value={installer.expiresAt} />
      </Text>
    </Stack>
  );
}
