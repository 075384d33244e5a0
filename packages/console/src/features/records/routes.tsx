import type { RouteObject } from 'react-router';

/** The records pages, mounted under the signed-in layout by app/router.tsx. */
export const recordsRoutes: RouteObject[] = [];
