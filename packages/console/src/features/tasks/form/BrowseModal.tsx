import { Modal, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { NodeFsBrowser } from '../../../components/NodeFsBrowser.tsx';

/** The node filesystem browser in a dialog, for picking source paths or a database file. */
export function BrowseModal({
  opened,
  onClose,
  nodeId,
  multiple,
  files,
  onPick,
}: {
  opened: boolean;
  onClose: () => void;
  nodeId: number | null;
  multiple: boolean;
  files: boolean;
  onPick: (paths: string[]) => void;
}) {
  const { t } = useTranslation('tasks');
  return (
    <Modal opened={opened} onClose={onClose} title={t('form.browseTitle')} size="xl">
      {nodeId === null ? (
        <Text size="sm" c="dimmed">
          {t('form.browseNoNode')}
        </Text>
      ) : (
        <NodeFsBrowser
          nodeId={nodeId}
          multiple={multiple}
          files={files}
          onPick={(paths) => {
            onPick(paths);
            onClose();
          }}
        />
      )}
    </Modal>
  );
}
