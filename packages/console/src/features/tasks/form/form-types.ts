import type { UseFormReturnType } from '@mantine/form';
import type { TaskFormValues } from '../task-form-model.ts';

/** What every form section receives. */
export type TaskForm = UseFormReturnType<TaskFormValues>;
