import type { RouteObject } from 'react-router';

/** The templates pages, mounted under the signed-in layout by app/router.tsx. */
export const templatesRoutes: RouteObject[] = [];
