import type { RouteObject } from 'react-router';

/** The templates pages, mounted under the signed-in layout by app/router.tsx; loaded on first visit. */
export const templatesRoutes: RouteObject[] = [
  {
    path: '/templates',
    lazy: () => import('./TemplatesListPage.tsx').then((m) => ({ Component: m.TemplatesListPage })),
  },
  {
    path: '/templates/new',
    lazy: () => import('./TemplateEditPages.tsx').then((m) => ({ Component: m.NewTemplatePage })),
  },
  { path: '/templates/:id', lazy: () => import('./TemplatePage.tsx').then((m) => ({ Component: m.TemplatePage })) },
  {
    path: '/templates/:id/edit',
    lazy: () => import('./TemplateEditPages.tsx').then((m) => ({ Component: m.EditTemplatePage })),
  },
];
