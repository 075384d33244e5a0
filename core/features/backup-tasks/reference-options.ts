import { AppError } from '../../http/app-error.ts';
import type { TaskUpdate } from './backup-task-schemas.ts';
import type { BackupMode } from '../../db/entities/backup-task.ts';

/**
 * BackupX task options Backplane does not implement. Each is accepted at its "off" value (what
 * BackupX's console sends by default) and refused with a coded 400 naming it otherwise, so a
 * task never silently runs differently from what its client asked for.
 */

/** The mode a task input asks for (case and blanks ignored; '' is BackupX's full); undefined when absent. */
export function backupModeOf(mode: string | undefined): BackupMode | undefined {
  if (mode === undefined) return undefined;
  const m = mode.trim().toLowerCase();
  return m === 'differential' || m === 'repository' ? m : 'full';
}

/** BackupX's task types that no plugin of Backplane serves yet, by the names its console shows. */
export const REFERENCE_TYPE_NAMES: Readonly<Record<string, string>> = { mongodb: 'MongoDB', saphana: 'SAP HANA' };

/** `nodePoolTag` (BackupX's name) and `nodeLabel` (Backplane's) are one setting; undefined when neither is sent. */
export function poolLabel(input: Pick<TaskUpdate, 'nodeLabel' | 'nodePoolTag'>): string | undefined {
  return input.nodeLabel ?? input.nodePoolTag;
}

/** Throws the coded 400 for the first BackupX option of `input` that Backplane cannot honour. */
export function refuseUnsupportedOptions(input: TaskUpdate): void {
  const mode = input.backupMode?.trim().toLowerCase();
  if (mode !== undefined && !['', 'full', 'differential', 'repository'].includes(mode)) {
    throw new AppError('BACKUP_TASK_INVALID', {
      details: [
        { path: 'backupMode', message: `must be one of full, differential, repository, not "${input.backupMode}"` },
      ],
    });
  }
  const keys = Object.keys(input.extraConfig ?? {});
  if (keys.length > 0) {
    throw new AppError('BACKUP_TASK_EXTRA_CONFIG_UNSUPPORTED', {
      message:
        `extraConfig key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}` +
        ` ${keys.length > 1 ? 'are' : 'is'} not supported: Backplane tasks have no type-specific extra settings` +
        ' (BackupX uses them for SAP HANA).',
    });
  }
  if (
    input.nodeLabel !== undefined &&
    input.nodePoolTag !== undefined &&
    input.nodeLabel.trim() !== input.nodePoolTag.trim()
  ) {
    throw new AppError('BACKUP_TASK_INVALID', {
      details: [
        {
          path: 'nodePoolTag',
          message: `is BackupX's name for nodeLabel; "${input.nodePoolTag}" differs from nodeLabel "${input.nodeLabel}": send one of them`,
        },
      ],
    });
  }
}
