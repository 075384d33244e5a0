import type { ReactNode } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { useCan } from '../../app/use-session.ts';

/** Both pages are admin-only in the API: others are sent to the dashboard rather than shown a 403. */
function AdminOnly({ children }: { children: ReactNode }) {
  const can = useCan();
  return can('admin') ? <>{children}</> : <Navigate to="/" replace />;
}

/** The users pages (and API keys), mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const usersRoutes: RouteObject[] = [
  {
    path: 'users',
    lazy: () =>
      import('./UsersPage.tsx').then(({ UsersPage }) => ({
        Component: () => (
          <AdminOnly>
            <UsersPage />
          </AdminOnly>
        ),
      })),
  },
  {
    path: 'api-keys',
    lazy: () =>
      import('./ApiKeysPage.tsx').then(({ ApiKeysPage }) => ({
        Component: () => (
          <AdminOnly>
            <ApiKeysPage />
          </AdminOnly>
        ),
      })),
  },
];
