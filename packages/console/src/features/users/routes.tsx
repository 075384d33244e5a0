import type { RouteObject } from 'react-router';

/** The users pages, mounted under the signed-in layout by app/router.tsx. */
export const usersRoutes: RouteObject[] = [];
