import { Button, Divider, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';

/**
 * One button per single sign-on provider the master is configured with: a plain link to
 * `/api/auth/oidc/<name>/login`, which sends the browser on to the provider (its answer comes
 * back to /login/sso). None configured, or the list unreadable: nothing is shown.
 */
export function SsoButtons() {
  const { t } = useTranslation('auth');
  const providers = useQuery({
    queryKey: ['oidc-providers'],
    queryFn: () => unwrap(api.GET('/api/auth/oidc/providers')),
    staleTime: 5 * 60_000,
  });
  if (!providers.data?.length) return null;
  return (
    <Stack gap="xs">
      <Divider label={t('login.ssoDivider')} labelPosition="center" />
      {providers.data.map((p) => (
        <Button
          key={p.name}
          component="a"
          href={`/api/auth/oidc/${encodeURIComponent(p.name)}/login`}
          variant="default"
        >
          {t('login.sso', { name: p.displayName })}
        </Button>
      ))}
    </Stack>
  );
}
