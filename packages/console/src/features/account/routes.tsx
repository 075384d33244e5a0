import type { RouteObject } from 'react-router';

/** The account pages, mounted under the signed-in layout by app/router.tsx. */
export const accountRoutes: RouteObject[] = [];
