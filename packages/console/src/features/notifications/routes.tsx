import type { RouteObject } from 'react-router';

/** The notifications pages, mounted under the signed-in layout by app/router.tsx. */
export const notificationsRoutes: RouteObject[] = [];
