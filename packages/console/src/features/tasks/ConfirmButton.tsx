import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A button that asks before it acts (deletes). */
export function ConfirmButton({ label, title, message, onConfirm, loading, buttonProps, confirmLabel }: {
  label: ReactNode; title: string; message: string; onConfirm: () => void; loading?: boolean; buttonProps?: ButtonProps; confirmLabel?: string;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button color="red" variant="light" {...buttonProps} loading={loading} onClick={() => setOpen(true)}>{label}</Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={title} centered>
        <Text size="sm">{message}</Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setOpen(false)}>{t('actions.cancel')}</Button>
          <Button color="red" onClick={() => { setOpen(false); onConfirm(); }} data-autofocus>{confirmLabel ?? t('actions.delete')}</Button>
        </Group>
      </Modal>
    </>
  );
}
