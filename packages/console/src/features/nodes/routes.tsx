import type { RouteObject } from 'react-router';

/** The nodes pages, mounted under the signed-in layout by app/router.tsx. */
export const nodesRoutes: RouteObject[] = [];
