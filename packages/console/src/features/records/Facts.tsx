import type { ReactNode } from 'react';
import { SimpleGrid, Stack, Text } from '@mantine/core';

/** Label/value pairs of a record, two or three columns wide, one on a phone. */
export function Facts({ items }: { items: Array<[label: string, value: ReactNode] | false | null | undefined> }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md" verticalSpacing="sm" component="dl" m={0}>
      {items
        .filter((i): i is [string, ReactNode] => Boolean(i))
        .map(([label, value]) => (
          <Stack key={label} gap={0}>
            <Text component="dt" size="xs" c="dimmed">
              {label}
            </Text>
            <Text component="dd" size="sm" m={0} style={{ wordBreak: 'break-all' }}>
              {value}
            </Text>
          </Stack>
        ))}
    </SimpleGrid>
  );
}
