import type { RouteObject } from 'react-router';
import { TaskListPage } from './TaskListPage.tsx';
import { TaskCreatePage, TaskEditPage } from './TaskFormPage.tsx';
import { TaskDetailPage } from './TaskDetailPage.tsx';

/** The tasks pages, mounted under the signed-in layout by app/router.tsx. */
export const tasksRoutes: RouteObject[] = [
  { path: '/tasks', element: <TaskListPage /> },
  { path: '/tasks/new', element: <TaskCreatePage /> },
  { path: '/tasks/:id', element: <TaskDetailPage /> },
  { path: '/tasks/:id/edit', element: <TaskEditPage /> },
];
