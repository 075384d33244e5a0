import type { RouteObject } from 'react-router';

/** The targets pages, mounted under the signed-in layout by app/router.tsx. */
export const targetsRoutes: RouteObject[] = [];
