import type { RouteObject } from 'react-router';

/** The settings pages, mounted under the signed-in layout by app/router.tsx. */
export const settingsRoutes: RouteObject[] = [];
