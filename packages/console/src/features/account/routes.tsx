import type { RouteObject } from 'react-router';

/** The account pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const accountRoutes: RouteObject[] = [
  { path: 'account', lazy: () => import('./AccountPage.tsx').then((m) => ({ Component: m.AccountPage })) },
];
