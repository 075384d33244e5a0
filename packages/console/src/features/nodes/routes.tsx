import type { RouteObject } from 'react-router';

/** The nodes pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const nodesRoutes: RouteObject[] = [
  { path: '/nodes', lazy: () => import('./NodesPage.tsx').then((m) => ({ Component: m.NodesPage })) },
  {
    path: '/nodes/new',
    lazy: () => import('./NodesPage.tsx').then(({ NodesPage }) => ({ Component: () => <NodesPage adding /> })),
  },
  { path: '/nodes/:id', lazy: () => import('./NodeDetailPage.tsx').then((m) => ({ Component: m.NodeDetailPage })) },
];
