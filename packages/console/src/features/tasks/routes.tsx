import type { RouteObject } from 'react-router';

/** The tasks pages, mounted under the signed-in layout by app/router.tsx. */
export const tasksRoutes: RouteObject[] = [];
