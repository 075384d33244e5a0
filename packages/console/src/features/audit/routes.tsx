import type { RouteObject } from 'react-router';

/** The audit pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const auditRoutes: RouteObject[] = [
  { path: '/audit', lazy: () => import('./AuditPage.tsx').then((m) => ({ Component: m.AuditPage })) },
];
