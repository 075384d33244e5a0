import { Type, type Static, type TSchema } from 'typebox';
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

/** No limit by default: a console loads every template in one request. */
export const TemplateListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
});

export const TemplateSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  taskType: Type.String(),
  createdBy: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const TemplateDetail = Type.Intersect([
  TemplateSummary,
  Type.Object({
    /** The task input it makes (see template-payload-view.ts); `dbPassword` is `********` when one is stored, '' when not. */
    payload: TemplatePayload,
    maskedFields: Type.Array(Type.String()),
  }),
]);

/** The override fields' task-input types; each may also be null (a Go client's nil pointer), which overrides nothing. */
const overridable = Type.Required(
  Type.Pick(TaskInput, ['sourcePath', 'dbHost', 'dbName', 'tags', 'nodeId']),
).properties;
const Override = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/**
 * One task to create. Counts and the required name are checked by the handler, so they answer
 * TASK_TEMPLATE_INVALID rather than the generic INVALID_INPUT; the types are checked here.
 */
const Variables = Type.Object({
  name: Type.Optional(TaskInput.properties.name),
  sourcePath: Override(overridable.sourcePath),
  sourcePaths: TaskInput.properties.sourcePaths,
  dbHost: Override(overridable.dbHost),
  dbName: Override(overridable.dbName),
  tags: Override(overridable.tags),
  nodeId: Override(overridable.nodeId),
});
export type Variables = Static<typeof Variables>;

/** No maxItems here: any count over 100 is TASK_TEMPLATE_INVALID (the body limit bounds the parse). */
export const ApplyInput = Type.Object({
  variables: Type.Optional(Type.Array(Variables)),
});
export type ApplyInput = Static<typeof ApplyInput>;

/** `{name, taskId?, success, error?}` (absent fields left out, as Go's omitempty does), plus the item's `index` and, on failure, `code`. */
export const ApplyResult = Type.Array(
  Type.Object({
    index: Type.Integer(),
    name: Type.String(),
    success: Type.Boolean(),
    taskId: Type.Optional(Type.Integer()),
    error: Type.Optional(Type.String()),
    code: Type.Optional(Type.String()),
  }),
);
