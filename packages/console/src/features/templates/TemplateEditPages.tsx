import { useQuery } from '@tanstack/react-query';
import { Navigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useCan } from '../../app/use-session.ts';
import { templateQuery } from './queries.ts';
import { TemplateEditor } from './TemplateEditor.tsx';

/** /templates/new (operators). */
export function NewTemplatePage() {
  const { t } = useTranslation('templates');
  if (!useCan()('write')) return <Navigate to="/templates" replace />;
  return (
    <>
      <PageHeader title={t('newTitle')} />
      <TemplateEditor />
    </>
  );
}

/** /templates/:id/edit (operators; a viewer lands on the read-only view). */
export function EditTemplatePage() {
  const { t } = useTranslation('templates');
  const id = Number(useParams().id);
  const can = useCan();
  const query = useQuery(templateQuery(id));
  if (!can('write')) return <Navigate to={`/templates/${id}`} replace />;
  return (
    <QueryState query={query}>
      {(tpl) => (
        <>
          <PageHeader title={t('editTitle', { name: tpl.name })} />
          <TemplateEditor key={tpl.updatedAt} template={tpl} />
        </>
      )}
    </QueryState>
  );
}
