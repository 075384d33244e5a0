import type { RouteObject } from 'react-router';
import { RecordsListPage } from './RecordsListPage.tsx';
import { RecordDetailPage } from './RecordDetailPage.tsx';
import { RestoresListPage } from './RestoresListPage.tsx';
import { RestoreDetailPage } from './RestoreDetailPage.tsx';
import { VerificationsListPage } from './VerificationsListPage.tsx';
import { VerificationDetailPage } from './VerificationDetailPage.tsx';
import { ReplicationsListPage } from './ReplicationsListPage.tsx';
import { ReplicationDetailPage } from './ReplicationDetailPage.tsx';

/**
 * The records pages, mounted under the signed-in layout by app/router.tsx: backup records, and
 * the restore, verification and replication records made from them.
 */
export const recordsRoutes: RouteObject[] = [
  { path: '/records', element: <RecordsListPage /> },
  { path: '/records/:id', element: <RecordDetailPage /> },
  { path: '/restores', element: <RestoresListPage /> },
  { path: '/restores/:id', element: <RestoreDetailPage /> },
  { path: '/verifications', element: <VerificationsListPage /> },
  { path: '/verifications/:id', element: <VerificationDetailPage /> },
  { path: '/replications', element: <ReplicationsListPage /> },
  { path: '/replications/:id', element: <ReplicationDetailPage /> },
];
