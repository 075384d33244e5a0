import type { ReactNode } from 'react';
import { Group, Paper, Stack, Text, Title } from '@mantine/core';

/** One part of the account page, with its own h2. */
export function Section({
  title,
  intro,
  badge,
  children,
  testId,
}: {
  title: string;
  intro?: string;
  badge?: ReactNode;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={title} data-testid={testId}>
      <Stack gap="sm">
        <div>
          <Group gap="xs">
            <Title order={2} size="h4">
              {title}
            </Title>
            {badge}
          </Group>
          {intro && (
            <Text size="sm" c="dimmed">
              {intro}
            </Text>
          )}
        </div>
        {children}
      </Stack>
    </Paper>
  );
}
