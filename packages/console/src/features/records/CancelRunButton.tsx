import { IconPlayerStop } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/use-session.ts';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { isActive } from './run-state.ts';

/** Cancel for a queued or running restore or verification (writers only); refreshes `queryKey` after. */
export function CancelRunButton({
  state,
  label,
  cancel,
  queryKey,
}: {
  state: string;
  label: string;
  cancel: () => Promise<unknown>;
  queryKey: string;
}) {
  const { t } = useTranslation('records');
  const can = useCan();
  const queryClient = useQueryClient();
  if (!can('write') || !isActive(state)) return null;
  return (
    <ConfirmButton
      label={label}
      message={t('actions.cancelConfirm')}
      color="orange"
      leftSection={<IconPlayerStop size={16} />}
      onConfirm={async () => {
        await cancel();
        notifications.show({ message: t('actions.cancelled') });
        await queryClient.invalidateQueries({ queryKey: [queryKey] });
      }}
    />
  );
}
