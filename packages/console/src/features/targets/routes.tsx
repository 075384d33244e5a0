import type { RouteObject } from 'react-router';
import { TargetsPage } from './TargetsPage.tsx';
import { TargetNewPage } from './TargetNewPage.tsx';
import { TargetDetailPage } from './TargetDetailPage.tsx';
import { GoogleDriveCallbackPage } from './GoogleDriveCallbackPage.tsx';

/** The targets pages, mounted under the signed-in layout by app/router.tsx. */
export const targetsRoutes: RouteObject[] = [
  { path: '/targets', element: <TargetsPage /> },
  { path: '/targets/new', element: <TargetNewPage /> },
  { path: '/targets/google-drive/callback', element: <GoogleDriveCallbackPage /> },
  { path: '/targets/:id', element: <TargetDetailPage /> },
];
