import { TASK_DEFAULTS, normaliseTags } from '../backup-tasks/backup-task-service.ts';
import { backupModeOf, poolLabel } from '../backup-tasks/reference-options.ts';
import type { TemplatePayload } from './task-template-schemas.ts';

/**
 * A stored payload as the task input it makes: every task field, the stored value or the
 * default a task created from it gets: a full task input, which clients read (`sourcePath`,
 * `dbHost`, `dbName`, `tags`…). The single-value forms
 * (`sourcePath`, `storageTargetId`) are the first of their lists, `nodePoolTag` is `nodeLabel`,
 * tags are CSV. Never a name (each applied task is named by its variables item) and never the
 * password: `dbPassword` is `mask` or ''.
 */
export function payloadView(stored: TemplatePayload, mask: string) {
  const defaults = TASK_DEFAULTS;
  // Only an empty extraConfig is ever stored (any key is refused), and an empty one is left out.
  const { extraConfig: _empty, ...given } = stored;
  // The single-value forms stand in for an empty list, as the task input reads them.
  const sourcePaths = stored.sourcePaths?.length
    ? stored.sourcePaths
    : stored.sourcePath
      ? [stored.sourcePath]
      : defaults.sourcePaths;
  const storageTargetIds = stored.storageTargetIds?.length
    ? stored.storageTargetIds
    : stored.storageTargetId
      ? [stored.storageTargetId]
      : defaults.storageTargetIds;
  const label = poolLabel(stored) ?? defaults.nodeLabel;
  return {
    ...defaults,
    ...given,
    sourcePath: sourcePaths[0] ?? '',
    sourcePaths,
    storageTargetId: storageTargetIds[0] ?? 0,
    storageTargetIds,
    nodeLabel: label,
    nodePoolTag: label,
    tags: normaliseTags(stored.tags ?? defaults.tags).join(','),
    backupMode: backupModeOf(stored.backupMode) ?? defaults.backupMode,
    diffFullIntervalDays: stored.diffFullIntervalDays || defaults.diffFullIntervalDays,
    dbPassword: mask,
  };
}
