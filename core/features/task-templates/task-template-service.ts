import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { TaskTemplateEntity, type TaskTemplate } from '../../db/entities/task-template.ts';
import type { BackupTask } from '../../db/entities/backup-task.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { AppError } from '../../http/app-error.ts';
import type { BackupTaskService } from '../backup-tasks/backup-task-service.ts';
import type { TaskInput } from '../backup-tasks/backup-task-schemas.ts';
import { PASSWORD_MASK } from '../backup-tasks/backup-task-view.ts';
import { backupModeOf, poolLabel, refuseUnsupportedOptions } from '../backup-tasks/reference-options.ts';
import { payloadView } from './template-payload-view.ts';
import {
  MAX_APPLY,
  PAYLOAD_KEYS,
  type TemplateInput,
  type TemplatePayload,
  type TemplateUpdate,
  type Variables,
} from './task-template-schemas.ts';
import { rowLimit } from '../../http/schemas.ts';

export const TEMPLATE_SECRETS_AAD = 'task_templates.secrets';

/** The payload fields kept out of `payload` and sealed in `secrets`. */
type Secrets = { dbPassword?: string };
const SECRET_KEYS = ['dbPassword'] as const;

/** The fields a variables item may override, besides the name. */
const OVERRIDES = ['sourcePath', 'sourcePaths', 'dbHost', 'dbName', 'tags', 'nodeId'] as const;

/** An apply item: `{name, taskId?, success, error?}` with the item's `index` and, on failure, `code`. */
export interface ApplyItem {
  index: number;
  name: string;
  success: boolean;
  taskId?: number;
  error?: string;
  code?: string;
}

/** A variables field that is blank, an empty list or null means "keep the template's". */
const given = (value: unknown) =>
  value !== undefined &&
  value !== null &&
  (typeof value === 'string' ? value.trim() !== '' : !Array.isArray(value) || value.length > 0);

type Detail = { path: string; message: string };

/** The message of a refused item, with the failing fields when the error lists them. */
function itemError(err: AppError): string {
  const details = Array.isArray(err.details)
    ? (err.details as Detail[]).filter((d) => d && typeof d.path === 'string')
    : [];
  return details.length ? `${err.message} ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}` : err.message;
}

export function toTemplateSummary(t: TaskTemplate) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    taskType: t.taskType,
    createdBy: t.createdBy,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

/**
 * Templates: a name, a description and a task input (`payload`) without its name. The
 * database password is sealed apart from the payload and only ever leaves as the mask.
 */
export class TaskTemplateService {
  readonly #em: EntityManager;
  readonly #box: SecretBox;
  readonly #tasks: BackupTaskService;

  constructor({
    em,
    secretBox,
    backupTasks,
  }: { em: EntityManager; secretBox: SecretBox; backupTasks: BackupTaskService }) {
    this.#em = em;
    this.#box = secretBox;
    this.#tasks = backupTasks;
  }

  async list(page: { limit?: number; offset: number }): Promise<[TaskTemplate[], number]> {
    return this.#em.findAndCount(
      TaskTemplateEntity,
      {},
      { orderBy: { name: 'asc', id: 'asc' }, limit: rowLimit(page.limit), offset: page.offset },
    );
  }

  async get(id: number): Promise<TaskTemplate> {
    const template = await this.#em.findOne(TaskTemplateEntity, { id }, { populate: ['secrets'] });
    if (!template) throw new AppError('TASK_TEMPLATE_NOT_FOUND');
    return template;
  }

  async create(input: TemplateInput, createdBy: string): Promise<TaskTemplate> {
    const { payload, secrets } = this.#split(input.payload, {});
    const template = this.#em.create(TaskTemplateEntity, {
      name: this.#name(input.name),
      description: (input.description ?? '').trim(),
      taskType: payload.type,
      payload: JSON.stringify(payload),
      secrets: this.#seal(secrets),
      createdBy: createdBy.slice(0, 128),
    });
    await this.#flushUnique();
    return template;
  }

  /** Absent fields keep their values; a payload replaces the stored one, the password aside. */
  async update(id: number, input: TemplateUpdate): Promise<TaskTemplate> {
    const template = await this.get(id);
    if (input.name !== undefined) template.name = this.#name(input.name);
    if (input.description !== undefined) template.description = input.description.trim();
    if (input.payload !== undefined) {
      const { payload, secrets } = this.#split(input.payload, this.secretsOf(template));
      template.taskType = payload.type;
      template.payload = JSON.stringify(payload);
      template.secrets = this.#seal(secrets);
    }
    await this.#flushUnique();
    return template;
  }

  async delete(id: number): Promise<TaskTemplate> {
    const template = await this.get(id);
    await this.#em.remove(template).flush();
    return template;
  }

  /** The decrypted secrets: for applying, never for responses. */
  secretsOf(template: TaskTemplate): Secrets {
    if (!template.secrets) return {};
    return JSON.parse(this.#box.open(template.secrets, TEMPLATE_SECRETS_AAD)) as Secrets;
  }

  payloadOf(template: TaskTemplate): TemplatePayload {
    return JSON.parse(template.payload) as TemplatePayload;
  }

  /** The detail: the task input the payload makes, with every stored secret masked, and which fields were masked. */
  detail(template: TaskTemplate) {
    const secrets = this.secretsOf(template);
    const maskedFields = SECRET_KEYS.filter((k) => secrets[k]);
    return {
      ...toTemplateSummary(template),
      payload: payloadView(this.payloadOf(template), secrets.dbPassword ? PASSWORD_MASK : ''),
      maskedFields,
    };
  }

  /** 1 to 100 items, each naming its task; anything else refuses the whole request. */
  checkVariables(variables: Variables[] | undefined): Variables[] {
    if (!variables || variables.length === 0 || variables.length > MAX_APPLY) {
      throw new AppError('TASK_TEMPLATE_INVALID', {
        message: `variables must list 1 to ${MAX_APPLY} tasks.`,
        details: [{ path: 'variables', message: `must have 1 to ${MAX_APPLY} items` }],
      });
    }
    const details = variables.flatMap((v, i) =>
      v.name === undefined || v.name.trim() === '' ? [{ path: `variables/${i}/name`, message: 'is required' }] : [],
    );
    if (details.length)
      throw new AppError('TASK_TEMPLATE_INVALID', { message: 'Every variables item needs a task name.', details });
    return variables;
  }

  /** The task input one variables item makes: the payload, the item's fields over it, the template's password. */
  taskInput(template: TaskTemplate, v: Variables): TaskInput {
    const input: TaskInput = { ...this.payloadOf(template), name: v.name ?? '' };
    // A path given either way replaces both forms, or the payload's list would win over `sourcePath`.
    if (given(v.sourcePath) || given(v.sourcePaths)) {
      delete input.sourcePath;
      delete input.sourcePaths;
    }
    for (const key of OVERRIDES) if (given(v[key])) (input as Record<string, unknown>)[key] = v[key];
    const { dbPassword } = this.secretsOf(template);
    if (dbPassword) input.dbPassword = dbPassword;
    return input;
  }

  /**
   * Creates one task per item through the task service (every task rule applies), best effort:
   * a refused item is reported and the others go on. `created` runs after each task is stored.
   */
  async apply(
    template: TaskTemplate,
    variables: Variables[],
    created: (task: BackupTask) => Promise<void>,
  ): Promise<ApplyItem[]> {
    const results: ApplyItem[] = [];
    for (const [index, v] of variables.entries()) {
      try {
        const task = await this.#tasks.create(this.taskInput(template, v));
        await created(task);
        results.push({ index, name: task.name, success: true, taskId: task.id });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        results.push({ index, name: v.name ?? '', success: false, error: itemError(err), code: err.code });
      }
    }
    return results;
  }

  #name(name: string): string {
    const trimmed = name.trim();
    if (trimmed === '')
      throw new AppError('TASK_TEMPLATE_INVALID', { details: [{ path: 'name', message: 'must not be blank' }] });
    return trimmed;
  }

  /**
   * The stored payload (task-input keys only, no name, no secrets, canonical type) and the
   * secrets to seal: a new password, else the stored one (absent, '' and the mask keep it).
   * File tasks have no connection, so a file payload keeps no password.
   */
  #split(input: TemplatePayload, stored: Secrets): { payload: TemplatePayload; secrets: Secrets } {
    const type = this.#tasks.supportedType(input.type);
    refuseUnsupportedOptions(input);
    const payload: Record<string, unknown> = {};
    for (const key of PAYLOAD_KEYS) {
      // null (a Go client's nil list) means what absent means for a new task: empty.
      if (input[key] != null && !(SECRET_KEYS as readonly string[]).includes(key)) payload[key] = input[key];
    }
    payload.type = type;
    // Alias names and options at their only accepted values (reference-options.ts): stored once, under Backplane's names.
    const label = poolLabel(input);
    if (label !== undefined) payload.nodeLabel = label;
    for (const key of ['nodePoolTag', 'extraConfig']) delete payload[key];
    const mode = backupModeOf(input.backupMode);
    if (mode !== undefined) payload.backupMode = mode;
    const sent = input.dbPassword;
    const dbPassword = sent === undefined || sent === '' || sent === PASSWORD_MASK ? stored.dbPassword : sent;
    return { payload: payload as TemplatePayload, secrets: type === 'file' || !dbPassword ? {} : { dbPassword } };
  }

  #seal(secrets: Secrets): string {
    return Object.keys(secrets).length ? this.#box.seal(JSON.stringify(secrets), TEMPLATE_SECRETS_AAD) : '';
  }

  async #flushUnique(): Promise<void> {
    try {
      await this.#em.flush();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new AppError('TASK_TEMPLATE_NAME_EXISTS');
      throw err;
    }
  }
}
