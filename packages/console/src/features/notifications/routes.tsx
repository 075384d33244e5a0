import type { RouteObject } from 'react-router';
import { NotificationsListPage } from './NotificationsListPage.tsx';
import { ChannelPage, NewChannelPage } from './ChannelPage.tsx';

/** The notifications pages, mounted under the signed-in layout by app/router.tsx. */
export const notificationsRoutes: RouteObject[] = [
  { path: '/notifications', element: <NotificationsListPage /> },
  { path: '/notifications/new', element: <NewChannelPage /> },
  { path: '/notifications/:id', element: <ChannelPage /> },
];
