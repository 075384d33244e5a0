import type { ReactNode } from 'react';
import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from './ErrorAlert.tsx';

interface Props extends Pick<ButtonProps, 'color' | 'variant' | 'size' | 'leftSection'> {
  /** The button's text (also the confirm button's). */
  label: string;
  title: string;
  message: ReactNode;
  onConfirm: () => Promise<unknown>;
  loading?: boolean;
  error?: unknown;
}

/** A button that asks first (delete, rotate…): the action runs only from the dialog, which shows its error with the code. */
export function ConfirmButton({ label, title, message, onConfirm, loading, error, color = 'red', variant = 'light', size = 'sm', leftSection }: Props) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button color={color} variant={variant} size={size} leftSection={leftSection} onClick={open}>{label}</Button>
      <Modal opened={opened} onClose={close} title={title} centered>
        <Text size="sm" mb="md">{message}</Text>
        <ErrorAlert error={error} />
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={close}>{t('actions.cancel')}</Button>
          <Button color={color} loading={loading} data-autofocus onClick={() => void onConfirm().then(close, () => undefined)}>{label}</Button>
        </Group>
      </Modal>
    </>
  );
}
