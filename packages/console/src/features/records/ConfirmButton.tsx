import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text, type ButtonProps } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';

/**
 * A button that asks first, then runs `onConfirm`; a refusal stays in the dialog with the
 * server's message and code (e.g. BACKUP_RECORD_LOCKED), a success closes it.
 */
export function ConfirmButton({ label, message, confirmLabel, onConfirm, icon, color = 'red', variant = 'light', disabled }: {
  label: string; message: string; confirmLabel?: string; onConfirm: () => Promise<unknown>; icon?: ReactNode;
  color?: string; variant?: ButtonProps['variant']; disabled?: boolean;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const run = useMutation({ mutationFn: onConfirm, onSuccess: () => setOpen(false) });
  const close = () => { setOpen(false); run.reset(); };
  return (
    <>
      <Button color={color} variant={variant} leftSection={icon} onClick={() => setOpen(true)} disabled={disabled}>{label}</Button>
      <Modal opened={open} onClose={close} title={label}>
        <Stack>
          <Text>{message}</Text>
          <ErrorAlert error={run.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>{t('actions.cancel')}</Button>
            <Button color={color} loading={run.isPending} onClick={() => run.mutate()} data-autofocus>{confirmLabel ?? label}</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
