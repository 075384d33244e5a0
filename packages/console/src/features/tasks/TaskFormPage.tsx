import { Text } from '@mantine/core';
import { useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useTask } from './task-queries.ts';
import { emptyTaskForm, formFromTask } from './task-form-model.ts';
import { TaskForm } from './TaskForm.tsx';
import { TemplateApplyButton } from './TemplateApplyButton.tsx';
import { useCan } from '../../app/use-session.ts';

/** /tasks/new: an empty form (or one made from a template). */
export function TaskCreatePage() {
  const { t } = useTranslation('tasks');
  const can = useCan();
  return (
    <>
      <PageHeader title={t('form.createTitle')} actions={can('write') && <TemplateApplyButton />} />
      {can('write') ? (
        <TaskForm initial={emptyTaskForm()} taskId={null} passwordStored={false} />
      ) : (
        <Text c="dimmed">{t('form.readOnly')}</Text>
      )}
    </>
  );
}

/** /tasks/:id/edit: the same form, filled from the stored task. */
export function TaskEditPage() {
  const { t } = useTranslation('tasks');
  const id = Number(useParams().id);
  const task = useTask(id);
  const can = useCan();
  if (!can('write'))
    return (
      <>
        <PageHeader title={t('form.editTitleShort')} />
        <Text c="dimmed">{t('form.readOnly')}</Text>
      </>
    );
  return (
    <>
      <PageHeader title={task.data ? t('form.editTitle', { name: task.data.name }) : t('form.editTitleShort')} />
      <QueryState query={task}>
        {(data) => (
          <TaskForm
            key={data.updatedAt}
            initial={formFromTask(data)}
            taskId={id}
            passwordStored={data.dbPassword !== ''}
          />
        )}
      </QueryState>
    </>
  );
}
