import { useState } from 'react';
import { Card, SimpleGrid, Stack, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { searchTypes, type CatalogueType } from './target-catalogue.ts';

/** The type picker of a new target: search over every type, built-in types first, then rclone's backends. */
export function TypePicker({ types, onPick }: { types: CatalogueType[]; onPick: (type: CatalogueType) => void }) {
  const { t } = useTranslation('targets');
  const [query, setQuery] = useState('');
  const found = searchTypes(types, query);
  const groups = [
    { key: 'plugin', title: t('picker.plugin'), items: found.filter((x) => x.family === 'plugin') },
    { key: 'rclone', title: t('picker.rclone'), items: found.filter((x) => x.family === 'rclone') },
  ].filter((g) => g.items.length > 0);
  return (
    <Stack>
      <TextInput
        label={t('picker.search')}
        placeholder={t('picker.searchPlaceholder')}
        leftSection={<IconSearch size={16} />}
        value={query}
        onChange={(e) => setQuery(e.currentTarget.value)}
        data-autofocus
      />
      {groups.length === 0 && <Text c="dimmed">{t('picker.nothing', { query })}</Text>}
      {groups.map((group) => (
        <Stack key={group.key} gap="xs">
          <Title order={2} size="h4">
            {group.title}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {group.items.map((type) => (
              <UnstyledButton
                key={type.name}
                onClick={() => onPick(type)}
                aria-label={t('picker.choose', { name: type.displayName, type: type.name })}
                data-type={type.name}
              >
                <Card withBorder padding="sm" h="100%">
                  <Text fw={600} lineClamp={2} title={type.displayName}>
                    {type.displayName}
                  </Text>
                  <Text size="xs" c="dimmed" ff="monospace">
                    {type.name}
                  </Text>
                  {type.family === 'plugin' && (
                    <Text size="sm" mt={4} lineClamp={3}>
                      {type.description}
                    </Text>
                  )}
                </Card>
              </UnstyledButton>
            ))}
          </SimpleGrid>
        </Stack>
      ))}
    </Stack>
  );
}
