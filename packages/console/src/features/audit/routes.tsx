import type { RouteObject } from 'react-router';
import { AuditPage } from './AuditPage.tsx';

/** The audit pages, mounted under the signed-in layout by app/router.tsx. */
export const auditRoutes: RouteObject[] = [
  { path: '/audit', element: <AuditPage /> },
];
