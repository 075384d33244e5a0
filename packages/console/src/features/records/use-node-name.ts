import { useTranslation } from 'react-i18next';
import { useNodeOptions } from './use-options.ts';

/** A record's node as a name: 0 is the master (docs/api-decisions.md, "The local node is the master"). */
export function useNodeName(): (nodeId: number) => string {
  const { t } = useTranslation('records');
  const nodes = useNodeOptions();
  return (nodeId) =>
    nodeId === 0 ? t('filter.master') : (nodes.data?.find((n) => n.id === nodeId)?.name ?? `#${nodeId}`);
}
