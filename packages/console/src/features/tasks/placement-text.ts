import type { TFunction } from 'i18next';

/** Where a task runs, in words: the master, a node by name, or a label pool. */
export function placementText(
  t: TFunction<'tasks'>,
  task: { nodeId: number; nodeName: string; nodeLabel: string },
  nodeNames?: Map<number, string>,
): string {
  if (task.nodeLabel) return t('placement.poolNamed', { label: task.nodeLabel });
  if (task.nodeId > 0)
    return task.nodeName || nodeNames?.get(task.nodeId) || t('placement.nodeNumbered', { id: task.nodeId });
  return t('placement.master');
}
