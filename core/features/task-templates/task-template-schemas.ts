import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';
import { TaskInput } from '../backup-tasks/backup-task-schemas.ts';

/** Applying a template creates at most this many tasks per request. */
export const MAX_APPLY = 100;

const { name: _taskName, ...payloadProperties } = TaskInput.properties;

/**
 * A task input without its name (a template has its own; each applied task gets its name from
 * its variables item). A `name` sent anyway is dropped, like any other unknown key.
 */
export const TemplatePayload = Type.Object(payloadProperties);
export type TemplatePayload = Static<typeof TemplatePayload>;

/** The payload keys kept when a template is stored: exactly the task input's, minus `name`. */
export const PAYLOAD_KEYS = Object.keys(payloadProperties) as (keyof TemplatePayload)[];

const Name = Type.String({ minLength: 1, maxLength: 128 });
const Description = Type.String({ maxLength: 500 });

export const TemplateInput = Type.Object({
  name: Name,
  description: Type.Optional(Description),
  payload: TemplatePayload,
});
export type TemplateInput = Static<typeof TemplateInput>;

/** Update: any subset; a payload sent replaces the stored one (the mask or '' keeps the password). */
export const TemplateUpdate = Type.Partial(TemplateInput);
export type TemplateUpdate = Static<typeof TemplateUpdate>;

export const TemplateSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  taskType: Type.String(),
  createdBy: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const TemplateDetail = Type.Intersect([TemplateSummary, Type.Object({
  /** The task input it makes (see template-payload-view.ts); `dbPassword` is `********` when one is stored, '' when not. */
  payload: TemplatePayload,
  maskedFields: Type.Array(Type.String()),
})]);

/**
 * One task to create. Counts and the required name are checked by the handler, so they answer
 * TASK_TEMPLATE_INVALID rather than the generic INVALID_INPUT; the types are checked here.
 */
const Variables = Type.Object({
  name: Type.Optional(TaskInput.properties.name),
  sourcePath: TaskInput.properties.sourcePath,
  sourcePaths: TaskInput.properties.sourcePaths,
  dbHost: TaskInput.properties.dbHost,
  dbName: TaskInput.properties.dbName,
  tags: TaskInput.properties.tags,
  nodeId: TaskInput.properties.nodeId,
});
export type Variables = Static<typeof Variables>;

/** No maxItems here: any count over 100 is TASK_TEMPLATE_INVALID (the body limit bounds the parse). */
export const ApplyInput = Type.Object({
  variables: Type.Optional(Type.Array(Variables)),
});
export type ApplyInput = Static<typeof ApplyInput>;

/** BackupX's `{name, taskId?, success, error?}` (Go's omitempty), plus the item's `index` and, on failure, `code`. */
export const ApplyResult = Type.Array(Type.Object({
  index: Type.Integer(),
  name: Type.String(),
  success: Type.Boolean(),
  taskId: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
}));
