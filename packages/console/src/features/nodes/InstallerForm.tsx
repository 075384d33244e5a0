import { useState } from 'react';
import { Button, Group, Select, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { INSTALLER_TTLS } from './node-form.ts';

export interface InstallerChoice {
  mode: 'systemd' | 'docker' | 'foreground';
  ttlMinutes: number;
  agentMasterUrl: string;
}

export const DEFAULT_INSTALLER: InstallerChoice = { mode: 'systemd', ttlMinutes: 60, agentMasterUrl: '' };

/** The installer's options the console offers (how the agent runs, how long the command is valid, the master URL agents use). */
export function InstallerFields({
  value,
  onChange,
}: {
  value: InstallerChoice;
  onChange: (v: InstallerChoice) => void;
}) {
  const { t } = useTranslation('nodes');
  const modes = (['systemd', 'docker', 'foreground'] as const).map((m) => ({
    value: m,
    label: t(`installer.modes.${m}`),
  }));
  const ttls = INSTALLER_TTLS.map((m) => ({
    value: String(m),
    label: m < 60 ? t('installer.ttlMinutes', { count: m }) : t('installer.ttlHours', { count: m / 60 }),
  }));
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Select
          label={t('installer.mode')}
          data={modes}
          value={value.mode}
          allowDeselect={false}
          onChange={(v) => onChange({ ...value, mode: (v ?? 'systemd') as InstallerChoice['mode'] })}
        />
        <Select
          label={t('installer.ttl')}
          data={ttls}
          value={String(value.ttlMinutes)}
          allowDeselect={false}
          onChange={(v) => onChange({ ...value, ttlMinutes: Number(v ?? 60) })}
        />
      </SimpleGrid>
      <TextInput
        label={t('installer.masterUrl')}
        description={t('installer.masterUrlHint')}
        placeholder={window.location.origin}
        value={value.agentMasterUrl}
        onChange={(e) => onChange({ ...value, agentMasterUrl: e.currentTarget.value })}
      />
    </Stack>
  );
}

/** The installer body of POST /api/nodes/{id}/install-tokens. */
export function installerBody(choice: InstallerChoice) {
  return {
    mode: choice.mode,
    ttlMinutes: choice.ttlMinutes,
    ...(choice.agentMasterUrl.trim() ? { agentMasterUrl: choice.agentMasterUrl.trim() } : {}),
  };
}

/** Asks for a new installer of an existing node (node page). */
export function NewInstallerForm({
  onCreate,
  loading,
}: {
  onCreate: (choice: InstallerChoice) => void;
  loading: boolean;
}) {
  const { t } = useTranslation('nodes');
  const [choice, setChoice] = useState(DEFAULT_INSTALLER);
  return (
    <Stack gap="sm">
      <InstallerFields value={choice} onChange={setChoice} />
      <Group justify="flex-end">
        <Button loading={loading} onClick={() => onCreate(choice)}>
          {t('installer.create')}
        </Button>
      </Group>
    </Stack>
  );
}
