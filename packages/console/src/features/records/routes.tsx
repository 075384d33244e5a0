import type { RouteObject } from 'react-router';

/**
 * The records pages, mounted under the signed-in layout by app/router.tsx: backup records, and
 * the restore, verification and replication records made from them. Each page loads on first visit.
 */
export const recordsRoutes: RouteObject[] = [
  { path: '/records', lazy: () => import('./RecordsListPage.tsx').then((m) => ({ Component: m.RecordsListPage })) },
  {
    path: '/records/:id',
    lazy: () => import('./RecordDetailPage.tsx').then((m) => ({ Component: m.RecordDetailPage })),
  },
  { path: '/restores', lazy: () => import('./RestoresListPage.tsx').then((m) => ({ Component: m.RestoresListPage })) },
  {
    path: '/restores/:id',
    lazy: () => import('./RestoreDetailPage.tsx').then((m) => ({ Component: m.RestoreDetailPage })),
  },
  {
    path: '/verifications',
    lazy: () => import('./VerificationsListPage.tsx').then((m) => ({ Component: m.VerificationsListPage })),
  },
  {
    path: '/verifications/:id',
    lazy: () => import('./VerificationDetailPage.tsx').then((m) => ({ Component: m.VerificationDetailPage })),
  },
  {
    path: '/replications',
    lazy: () => import('./ReplicationsListPage.tsx').then((m) => ({ Component: m.ReplicationsListPage })),
  },
  {
    path: '/replications/:id',
    lazy: () => import('./ReplicationDetailPage.tsx').then((m) => ({ Component: m.ReplicationDetailPage })),
  },
];
