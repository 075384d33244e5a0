import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../components/ErrorAlert.tsx';

/**
 * What a page that failed to load or render shows instead of the router's default screen. The
 * usual cause is an upgrade while the tab was open: the page's old code files are gone, and
 * reloading fetches the new ones.
 */
export function RouteErrorPage() {
  const { t } = useTranslation();
  const error = useRouteError();
  const message = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error;
  return (
    <Center mih="60vh" p="md">
      <Stack align="center" maw={520}>
        <Title order={1} size="h2">
          {t('routeError.title')}
        </Title>
        <Text c="dimmed" ta="center">
          {t('routeError.body')}
        </Text>
        <ErrorAlert error={message instanceof Error || typeof message === 'string' ? message : String(message)} />
        <Button onClick={() => window.location.reload()}>{t('routeError.reload')}</Button>
      </Stack>
    </Center>
  );
}
