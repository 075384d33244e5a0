import type { ReactNode } from 'react';
import { Group, Paper, Stack, Title } from '@mantine/core';

/** A dashboard section: a bordered card with its own h2 (the page's h1 is the PageHeader). */
export function Panel({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={title}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} size="h4">
            {title}
          </Title>
          {actions}
        </Group>
        {children}
      </Stack>
    </Paper>
  );
}
