import type { RouteObject } from 'react-router';

/** The audit pages, mounted under the signed-in layout by app/router.tsx. */
export const auditRoutes: RouteObject[] = [];
