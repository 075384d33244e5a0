import type { RouteObject } from 'react-router';

/** The reports pages, mounted under the signed-in layout by app/router.tsx. */
export const reportsRoutes: RouteObject[] = [];
