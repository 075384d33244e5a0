import { useEffect, useState } from 'react';
import { Alert, Button, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { targetKeys } from './target-queries.ts';

/** States already posted: a state is single-use, and StrictMode runs effects twice. */
const posted = new Set<string>();

function readCallback(): { state: string; code: string; error: string | null } {
  const params = new URLSearchParams(window.location.search);
  return { state: params.get('state') ?? '', code: params.get('code') ?? '', error: params.get('error') };
}

/**
 * /targets/google-drive/callback: where Google sends the browser when the console started the
 * authorisation (its redirectUri). Posts `state` and `code` to POST
 * /api/storage-targets/google-drive/complete with the session, which creates (or re-authorises) the target.
 */
export function GoogleDriveCallbackPage() {
  const { t } = useTranslation('targets');
  const queryClient = useQueryClient();
  const [callback] = useState(readCallback);
  const complete = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/storage-targets/google-drive/complete', {
          body: { state: callback.state, code: callback.code },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: targetKeys.all }),
  });
  const ready = !callback.error && callback.state !== '' && callback.code !== '';
  useEffect(() => {
    // The code is a credential: out of the address bar and the history.
    window.history.replaceState(window.history.state, '', window.location.pathname);
    if (ready && !posted.has(callback.state)) {
      posted.add(callback.state);
      complete.mutate();
    }
  }, [ready, callback.state, complete]);
  return (
    <>
      <PageHeader title={t('google.callbackTitle')} />
      <Paper withBorder p="md" maw={640}>
        <Stack>
          {callback.error && <Alert color="red">{t('google.googleError', { error: callback.error })}</Alert>}
          {!callback.error && !ready && <Alert color="yellow">{t('google.missingParams')}</Alert>}
          {complete.isPending && (
            <Group>
              <Loader size="sm" aria-label={t('loading', { ns: 'common' })} />
              <Text>{t('google.completing')}</Text>
            </Group>
          )}
          <ErrorAlert error={complete.error} />
          {complete.isSuccess && (
            <Alert color="green">
              <Text>{t('google.connected', { name: complete.data.name })}</Text>
              <Button component={Link} to={`/targets/${complete.data.id}`} mt="sm" size="xs">
                {t('google.openTarget')}
              </Button>
            </Alert>
          )}
          <Group>
            <Button component={Link} to="/targets" variant="default">
              {t('google.backToTargets')}
            </Button>
          </Group>
        </Stack>
      </Paper>
    </>
  );
}
