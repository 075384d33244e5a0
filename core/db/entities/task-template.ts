import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A reusable task definition; `payload` is a task input without secrets, `secrets` is sealed. */
export const TaskTemplateEntity = defineEntity({
  name: 'TaskTemplate',
  tableName: 'task_templates',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(128).unique(),
    description: p.string().length(500).default(''),
    taskType: p.string().length(64),
    /** JSON task input, secrets removed. */
    payload: p.text(),
    /** Sealed JSON of the secret fields (`dbPassword`); '' when none. */
    secrets: p.text().default('').lazy(),
    createdBy: p.string().length(128).default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type TaskTemplate = InferEntity<typeof TaskTemplateEntity>;
