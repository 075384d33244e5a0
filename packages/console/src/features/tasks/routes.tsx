import type { RouteObject } from 'react-router';

/** The tasks pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const tasksRoutes: RouteObject[] = [
  { path: '/tasks', lazy: () => import('./TaskListPage.tsx').then((m) => ({ Component: m.TaskListPage })) },
  { path: '/tasks/new', lazy: () => import('./TaskFormPage.tsx').then((m) => ({ Component: m.TaskCreatePage })) },
  { path: '/tasks/:id', lazy: () => import('./TaskDetailPage.tsx').then((m) => ({ Component: m.TaskDetailPage })) },
  { path: '/tasks/:id/edit', lazy: () => import('./TaskFormPage.tsx').then((m) => ({ Component: m.TaskEditPage })) },
];
