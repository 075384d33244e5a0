import { Accordion, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { manualAgentCommand } from './node-form.ts';
import { CopyBlock } from './CopyBlock.tsx';

/** A node token the API shows once (create, rotate), with the command that starts an agent by hand; folded away by default. */
export function TokenOnce({ token, open = false }: { token: string; open?: boolean }) {
  const { t } = useTranslation('nodes');
  return (
    <Accordion variant="contained" defaultValue={open ? 'token' : null}>
      <Accordion.Item value="token">
        <Accordion.Control>{t('token.manual')}</Accordion.Control>
        <Accordion.Panel>
          <Stack gap="sm">
            <Text size="sm" c="dimmed">
              {t('token.once')}
            </Text>
            <CopyBlock label={t('token.nodeToken')} value={token} testId="node-token" />
            <CopyBlock label={t('token.manual')} value={manualAgentCommand(window.location.origin, token)} />
          </Stack>
        </Accordion.Panel>
      </Accordion.Item>
    </Accordion>
  );
}
