import type { ReactNode } from 'react';
import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from './ErrorAlert.tsx';

interface Props extends Pick<ButtonProps, 'color' | 'variant' | 'size' | 'leftSection' | 'disabled'> {
  /** The button's text (also the dialog's title and confirm button unless given). */
  label: string;
  title?: string;
  message: ReactNode;
  confirmLabel?: string;
  /**
   * The action, run only from the dialog. A promise keeps the dialog open until it settles: a
   * success closes it, a refusal stays in it with the server's message and code.
   */
  onConfirm: () => unknown;
  /** Work the caller tracks itself (a mutation it started). */
  loading?: boolean;
  /** The caller's own error for this action, shown in the dialog. */
  error?: unknown;
}

/** A button that asks first (delete, cancel, rotate…). */
export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  onConfirm,
  loading = false,
  error,
  color = 'red',
  variant = 'light',
  size = 'sm',
  leftSection,
  disabled,
}: Props) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  const run = useMutation({
    mutationFn: async () => {
      await onConfirm();
    },
    onSuccess: close,
  });
  const dismiss = () => {
    close();
    run.reset();
  };
  return (
    <>
      <Button
        color={color}
        variant={variant}
        size={size}
        leftSection={leftSection}
        disabled={disabled}
        loading={loading}
        onClick={open}
      >
        {label}
      </Button>
      <Modal opened={opened} onClose={dismiss} title={title ?? label} centered>
        <Text size="sm" mb="md">
          {message}
        </Text>
        <ErrorAlert error={run.error ?? error} />
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={dismiss}>
            {t('actions.cancel')}
          </Button>
          <Button color={color} loading={loading || run.isPending} data-autofocus onClick={() => run.mutate()}>
            {confirmLabel ?? label}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
