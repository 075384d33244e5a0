import { createBrowserRouter } from 'react-router';
import { PageLoader } from './components/PageLoader.tsx';
import { RouteErrorPage } from './app/RouteErrorPage.tsx';
import { AppLayout } from './app/AppLayout.tsx';
import { RequireSession } from './app/RequireSession.tsx';
import { NotFoundPage } from './app/NotFoundPage.tsx';
import { SetupPage } from './features/auth/SetupPage.tsx';
import { LoginPage } from './features/auth/LoginPage.tsx';
import { SsoPage } from './features/auth/SsoPage.tsx';
import { dashboardRoutes } from './features/dashboard/routes.tsx';
import { tasksRoutes } from './features/tasks/routes.tsx';
import { recordsRoutes } from './features/records/routes.tsx';
import { targetsRoutes } from './features/targets/routes.tsx';
import { nodesRoutes } from './features/nodes/routes.tsx';
import { notificationsRoutes } from './features/notifications/routes.tsx';
import { templatesRoutes } from './features/templates/routes.tsx';
import { usersRoutes } from './features/users/routes.tsx';
import { accountRoutes } from './features/account/routes.tsx';
import { auditRoutes } from './features/audit/routes.tsx';
import { settingsRoutes } from './features/settings/routes.tsx';
import { reportsRoutes } from './features/reports/routes.tsx';

/** Every page of the console; each feature folder owns its routes. */
export const router = createBrowserRouter([
  { path: '/setup', element: <SetupPage /> },
  { path: '/login', element: <LoginPage /> },
  { path: '/login/sso', element: <SsoPage /> },
  {
    element: <RequireSession />,
    // Shown while the first page's code loads (pages load on first visit: see each feature's routes.tsx).
    hydrateFallbackElement: <PageLoader fullHeight />,
    errorElement: <RouteErrorPage />,
    children: [
      {
        element: <AppLayout />,
        errorElement: <RouteErrorPage />,
        children: [
          ...dashboardRoutes,
          ...tasksRoutes,
          ...recordsRoutes,
          ...targetsRoutes,
          ...nodesRoutes,
          ...notificationsRoutes,
          ...templatesRoutes,
          ...usersRoutes,
          ...accountRoutes,
          ...auditRoutes,
          ...settingsRoutes,
          ...reportsRoutes,
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);
