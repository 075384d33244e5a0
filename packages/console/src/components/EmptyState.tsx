import type { ReactNode } from 'react';
import { Stack, Text, Title } from '@mantine/core';

/** An empty list says what to do next, with the action that does it. */
export function EmptyState({ title, hint, action }: { title: string; hint?: string; action?: ReactNode }) {
  return (
    <Stack align="center" gap="xs" py="xl" data-testid="empty-state">
      <Title order={4}>{title}</Title>
      {hint && (
        <Text c="dimmed" ta="center" maw={480}>
          {hint}
        </Text>
      )}
      {action}
    </Stack>
  );
}
