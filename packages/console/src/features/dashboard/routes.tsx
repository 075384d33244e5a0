import type { RouteObject } from 'react-router';

/** The dashboard pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit (with the charts). */
export const dashboardRoutes: RouteObject[] = [
  { index: true, lazy: () => import('./DashboardPage.tsx').then((m) => ({ Component: m.DashboardPage })) },
];
