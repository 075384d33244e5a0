import type { RouteObject } from 'react-router';

/** The targets pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const targetsRoutes: RouteObject[] = [
  { path: '/targets', lazy: () => import('./TargetsPage.tsx').then((m) => ({ Component: m.TargetsPage })) },
  { path: '/targets/new', lazy: () => import('./TargetNewPage.tsx').then((m) => ({ Component: m.TargetNewPage })) },
  {
    path: '/targets/google-drive/callback',
    lazy: () => import('./GoogleDriveCallbackPage.tsx').then((m) => ({ Component: m.GoogleDriveCallbackPage })),
  },
  {
    path: '/targets/:id',
    lazy: () => import('./TargetDetailPage.tsx').then((m) => ({ Component: m.TargetDetailPage })),
  },
];
