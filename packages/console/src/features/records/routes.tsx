import type { RouteObject } from 'react-router';
import { RecordsListPage } from './RecordsListPage.tsx';
import { RecordDetailPage } from './RecordDetailPage.tsx';

/**
 * The records pages, mounted under the signed-in layout by app/router.tsx: backup records, and
 * the restore, verification and replication records made from them.
 */
export const recordsRoutes: RouteObject[] = [
  { path: '/records', element: <RecordsListPage /> },
  { path: '/records/:id', element: <RecordDetailPage /> },
];
