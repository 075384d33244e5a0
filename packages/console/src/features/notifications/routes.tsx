import type { RouteObject } from 'react-router';

/** The notifications pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const notificationsRoutes: RouteObject[] = [
  {
    path: '/notifications',
    lazy: () => import('./NotificationsListPage.tsx').then((m) => ({ Component: m.NotificationsListPage })),
  },
  {
    path: '/notifications/new',
    lazy: () => import('./ChannelPage.tsx').then((m) => ({ Component: m.NewChannelPage })),
  },
  { path: '/notifications/:id', lazy: () => import('./ChannelPage.tsx').then((m) => ({ Component: m.ChannelPage })) },
];
