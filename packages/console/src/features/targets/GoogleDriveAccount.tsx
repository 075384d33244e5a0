import { Avatar, Group, Paper, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { QueryState } from '../../components/QueryState.tsx';

/** The Google account a google_drive target is authorised with (GET …/google-drive/profile). */
export function GoogleDriveAccount({ id }: { id: number }) {
  const { t } = useTranslation('targets');
  const query = useQuery({
    queryKey: ['storage-targets', 'google-profile', id],
    queryFn: () => unwrap(api.GET('/api/storage-targets/{id}/google-drive/profile', { params: { path: { id } } })),
    staleTime: 5 * 60_000,
    retry: false,
  });
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="sm">
        {t('google.account')}
      </Title>
      <QueryState query={query}>
        {(profile) => (
          <Group>
            {/* Initials, not profile.picture: the console's CSP (img-src 'self' data:) blocks Google's image host. */}
            <Avatar name={profile.name || profile.email} color="initials" radius="xl" />
            <div>
              <Text fw={500}>{profile.name}</Text>
              <Text size="sm" c="dimmed">
                {profile.email}
              </Text>
            </div>
          </Group>
        )}
      </QueryState>
    </Paper>
  );
}
