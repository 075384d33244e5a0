import type { RouteObject } from 'react-router';
import { TemplatesListPage } from './TemplatesListPage.tsx';
import { TemplatePage } from './TemplatePage.tsx';
import { EditTemplatePage, NewTemplatePage } from './TemplateEditPages.tsx';

/** The templates pages, mounted under the signed-in layout by app/router.tsx. */
export const templatesRoutes: RouteObject[] = [
  { path: '/templates', element: <TemplatesListPage /> },
  { path: '/templates/new', element: <NewTemplatePage /> },
  { path: '/templates/:id', element: <TemplatePage /> },
  { path: '/templates/:id/edit', element: <EditTemplatePage /> },
];
