import { Center } from '@mantine/core';
import { PageLoader } from '../components/PageLoader.tsx';
import { useQuery } from '@tanstack/react-query';
import { Navigate, Outlet, useLocation } from 'react-router';
import { api, unwrap } from '../api/client.ts';
import { useSession } from './use-session.ts';
import { ErrorAlert } from '../components/ErrorAlert.tsx';

/** Signed-in pages: a fresh installation goes to first-run setup, a visitor to the login page. */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  const status = useQuery({
    queryKey: ['setup-status'],
    queryFn: () => unwrap(api.GET('/api/auth/setup/status')),
    staleTime: 60_000,
  });
  if (status.isPending) return <PageLoader fullHeight />;
  if (status.isError)
    return (
      <Center mih="100vh" p="md">
        <ErrorAlert error={status.error} />
      </Center>
    );
  if (!status.data.initialized) return <Navigate to="/setup" replace />;
  if (!session) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  if (session.mfaEnrollmentRequired && !location.pathname.startsWith('/account'))
    return <Navigate to="/account" replace />;
  return <Outlet />;
}
