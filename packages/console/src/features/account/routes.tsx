import type { RouteObject } from 'react-router';
import { AccountPage } from './AccountPage.tsx';

/** The account pages, mounted under the signed-in layout by app/router.tsx. */
export const accountRoutes: RouteObject[] = [{ path: 'account', element: <AccountPage /> }];
