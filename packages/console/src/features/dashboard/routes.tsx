import type { RouteObject } from 'react-router';
import { DashboardPage } from './DashboardPage.tsx';

/** The dashboard pages, mounted under the signed-in layout by app/router.tsx. */
export const dashboardRoutes: RouteObject[] = [{ index: true, element: <DashboardPage /> }];
