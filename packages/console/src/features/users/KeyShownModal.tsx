import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** The new key, shown this once, with a copy button and the warning that it cannot be shown again. */
export function KeyShownModal({ plainKey, onClose }: { plainKey: string; onClose: () => void }) {
  const { t } = useTranslation('users');
  return (
    <Modal opened onClose={onClose} title={t('keys.shown.title')} size="lg" closeOnClickOutside={false}>
      <Stack>
        <Alert color="orange" icon={<IconAlertTriangle size={18} />} role="alert">
          {t('keys.shown.warning')}
        </Alert>
        <Text size="sm" fw={500} id="new-api-key">
          {t('keys.shown.label')}
        </Text>
        <Group wrap="nowrap" gap="xs">
          <Code
            block
            style={{ flex: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}
            aria-labelledby="new-api-key"
            data-testid="plain-key"
          >
            {plainKey}
          </Code>
          <CopyButton value={plainKey}>
            {({ copied, copy }) => (
              <Button
                variant={copied ? 'filled' : 'default'}
                color={copied ? 'teal' : undefined}
                onClick={copy}
                leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              >
                {copied ? t('actions.copied', { ns: 'common' }) : t('actions.copy', { ns: 'common' })}
              </Button>
            )}
          </CopyButton>
        </Group>
        <Text size="xs" c="dimmed">
          {t('keys.shown.usage')}
        </Text>
        <Group justify="flex-end">
          <Button onClick={onClose}>{t('keys.shown.copied')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
