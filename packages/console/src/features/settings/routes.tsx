import type { RouteObject } from 'react-router';
import { SettingsPage } from './SettingsPage.tsx';

/** The settings pages, mounted under the signed-in layout by app/router.tsx. */
export const settingsRoutes: RouteObject[] = [
  { path: '/settings', element: <SettingsPage /> },
];
