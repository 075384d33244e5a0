import type { ReactNode } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { useCan } from '../../app/use-session.ts';
import { UsersPage } from './UsersPage.tsx';
import { ApiKeysPage } from './ApiKeysPage.tsx';

/** Both pages are admin-only in the API: others are sent to the dashboard rather than shown a 403. */
function AdminOnly({ children }: { children: ReactNode }) {
  const can = useCan();
  return can('admin') ? <>{children}</> : <Navigate to="/" replace />;
}

/** The users pages (and API keys), mounted under the signed-in layout by app/router.tsx. */
export const usersRoutes: RouteObject[] = [
  { path: 'users', element: <AdminOnly><UsersPage /></AdminOnly> },
  { path: 'api-keys', element: <AdminOnly><ApiKeysPage /></AdminOnly> },
];
