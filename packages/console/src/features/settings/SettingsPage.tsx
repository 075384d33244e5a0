import { useState } from 'react';
import { Button, Center, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap, ApiError } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useCan } from '../../app/use-session.ts';
import {
  formValues,
  groupSettings,
  serverFieldErrors,
  settingErrors,
  settingsPatch,
  type Catalogue,
} from './settings-layout.ts';
import { SettingInput } from './SettingInput.tsx';

const settingsQuery = { queryKey: ['settings'], queryFn: () => unwrap(api.GET('/api/settings')) };
const catalogueQuery = {
  queryKey: ['settings-catalogue'],
  queryFn: () => unwrap(api.GET('/api/settings/catalogue')),
  staleTime: 5 * 60_000,
};
const NO_CATALOGUE: Catalogue = [];

/**
 * /settings: every setting the API returns, grouped, with the input, help, default and support
 * the settings catalogue gives; saved by administrators (PUT), read-only for others.
 */
export function SettingsPage() {
  const { t } = useTranslation('settings');
  const query = useQuery(settingsQuery);
  const catalogue = useQuery(catalogueQuery);
  return (
    <>
      <PageHeader title={t('title')} description={t('description')} />
      {/* Without the catalogue the values are still shown and editable, their inputs guessed. */}
      <ErrorAlert error={catalogue.error} title={t('catalogueMissing')} />
      {/* Re-initialised from what the server stores after each save. */}
      <QueryState query={query}>
        {(stored) =>
          catalogue.isPending ? (
            <Center py="xl">
              <Loader aria-label={t('loading', { ns: 'common' })} />
            </Center>
          ) : (
            <SettingsForm key={JSON.stringify(stored)} stored={stored} catalogue={catalogue.data ?? NO_CATALOGUE} />
          )
        }
      </QueryState>
    </>
  );
}

function SettingsForm({ stored, catalogue }: { stored: Record<string, string>; catalogue: Catalogue }) {
  const { t } = useTranslation('settings');
  const { t: tc } = useTranslation();
  const can = useCan();
  const readOnly = !can('admin');
  const queryClient = useQueryClient();
  const [values, setValues] = useState(() => formValues(stored, catalogue));
  const [clear, setClear] = useState<string[]>([]);
  const [localErrors, setLocalErrors] = useState<Record<string, 'integer'>>({});
  const save = useMutation({
    mutationFn: async () => {
      const errors = settingErrors(values, stored, catalogue);
      setLocalErrors(errors);
      if (Object.keys(errors).length) throw new Error(t('fixFields'));
      const patch = settingsPatch(stored, values, catalogue, clear);
      if (Object.keys(patch).length === 0) return null;
      return unwrap(api.PUT('/api/settings', { body: patch }));
    },
    onSuccess: async (saved) => {
      notifications.show({ color: saved ? 'green' : 'gray', message: saved ? t('saved') : t('nothingChanged') });
      if (saved) await queryClient.invalidateQueries({ queryKey: ['settings'] });
    },
  });
  const server = save.error instanceof ApiError ? serverFieldErrors(save.error.details) : {};
  const errorOf = (key: string) => (localErrors[key] ? t('integer') : server[key]);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!readOnly) save.mutate();
      }}
    >
      <Stack>
        {readOnly && (
          <Text c="dimmed" size="sm">
            {t('readOnly')}
          </Text>
        )}
        {groupSettings(stored, catalogue).map(({ group, specs }) => (
          <Paper withBorder p="md" key={group}>
            <Title order={2} size="h4" mb="sm">
              {t(`groups.${group}`)}
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
              {specs.map((spec) => (
                <SettingInput
                  key={spec.key}
                  spec={spec}
                  value={values[spec.key] ?? ''}
                  stored={stored[spec.key] ?? ''}
                  error={errorOf(spec.key)}
                  disabled={readOnly}
                  onChange={(v) => setValues((prev) => ({ ...prev, [spec.key]: v }))}
                  clear={clear.includes(spec.key)}
                  onClear={(on) => setClear((prev) => (on ? [...prev, spec.key] : prev.filter((k) => k !== spec.key)))}
                />
              ))}
            </SimpleGrid>
          </Paper>
        ))}
        <ErrorAlert error={save.error} />
        {!readOnly && (
          <Group>
            <Button type="submit" loading={save.isPending}>
              {tc('actions.save')}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
