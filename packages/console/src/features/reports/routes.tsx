import type { RouteObject } from 'react-router';
import { CompliancePage } from './CompliancePage.tsx';

/** The reports pages, mounted under the signed-in layout by app/router.tsx. */
export const reportsRoutes: RouteObject[] = [{ path: 'reports/compliance', element: <CompliancePage /> }];
