import type { RouteObject } from 'react-router';

/** The settings pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const settingsRoutes: RouteObject[] = [
  { path: '/settings', lazy: () => import('./SettingsPage.tsx').then((m) => ({ Component: m.SettingsPage })) },
];
