import { Alert, Button, Code, CopyButton, Group, Modal, SimpleGrid, Stack } from '@mantine/core';
import { IconAlertTriangle, IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { recoveryCodesFile } from './account-state.ts';

function download(text: string, name: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Recovery codes, shown once: copy or download them before closing. */
export function RecoveryCodesModal({
  codes,
  username,
  onClose,
}: {
  codes: string[];
  username: string;
  onClose: () => void;
}) {
  const { t } = useTranslation('account');
  const text = recoveryCodesFile(codes, username, new Date().toISOString());
  return (
    <Modal opened onClose={onClose} title={t('codes.title')} closeOnClickOutside={false} size="md">
      <Stack>
        <Alert color="orange" icon={<IconAlertTriangle size={18} />} role="alert">
          {t('codes.warning')}
        </Alert>
        <SimpleGrid
          cols={2}
          aria-label={t('codes.label')}
          data-testid="recovery-codes"
          component="ul"
          style={{ listStyle: 'none', padding: 0 }}
        >
          {codes.map((c) => (
            <li key={c}>
              <Code fz="sm">{c}</Code>
            </li>
          ))}
        </SimpleGrid>
        <Group justify="space-between">
          <Group gap="xs">
            <CopyButton value={codes.join('\n')}>
              {({ copied, copy }) => (
                <Button variant="default" onClick={copy}>
                  {copied ? t('actions.copied', { ns: 'common' }) : t('codes.copy')}
                </Button>
              )}
            </CopyButton>
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              onClick={() => download(text, `backplane-recovery-codes-${username}.txt`)}
            >
              {t('codes.download')}
            </Button>
          </Group>
          <Button onClick={onClose}>{t('codes.close')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
