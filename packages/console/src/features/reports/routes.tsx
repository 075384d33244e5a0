import type { RouteObject } from 'react-router';

/** The reports pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const reportsRoutes: RouteObject[] = [
  {
    path: 'reports/compliance',
    lazy: () => import('./CompliancePage.tsx').then((m) => ({ Component: m.CompliancePage })),
  },
];
