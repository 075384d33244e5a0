import type { RouteObject } from 'react-router';
import { NodesPage } from './NodesPage.tsx';
import { NodeDetailPage } from './NodeDetailPage.tsx';

/** The nodes pages, mounted under the signed-in layout by app/router.tsx. */
export const nodesRoutes: RouteObject[] = [
  { path: '/nodes', element: <NodesPage /> },
  { path: '/nodes/new', element: <NodesPage adding /> },
  { path: '/nodes/:id', element: <NodeDetailPage /> },
];
