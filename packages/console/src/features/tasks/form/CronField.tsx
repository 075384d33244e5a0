import { List, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { cronPreview } from '../cron-preview.ts';
import { exactTime } from '../../../lib/time.ts';

/** A cron expression with its meaning and next runs as typed; an invalid one shows croner's error inline. */
export function CronField({
  label,
  description,
  value,
  onChange,
  serverError,
  timeZone,
  emptyText,
}: {
  label: string;
  description: string;
  value: string;
  onChange: (v: string) => void;
  serverError?: string | undefined;
  timeZone: string;
  emptyText: string;
}) {
  const { t, i18n } = useTranslation('tasks');
  const p = cronPreview(value, { timeZone, count: 5 });
  return (
    <Stack gap={4}>
      <TextInput
        label={label}
        description={description}
        value={value}
        placeholder="0 2 * * *"
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        onChange={(e) => onChange(e.currentTarget.value)}
        error={p.kind === 'invalid' ? t('cron.invalid', { error: p.error }) : serverError}
      />
      {p.kind === 'empty' && (
        <Text size="xs" c="dimmed">
          {emptyText}
        </Text>
      )}
      {p.kind === 'valid' && (
        <div data-testid="cron-preview">
          <Text size="sm" fw={500}>
            {p.description}
          </Text>
          <Text size="xs" c="dimmed">
            {t('cron.nextRuns', { zone: timeZone })}
          </Text>
          <List size="xs">
            {p.next.map((d) => (
              <List.Item key={d.toISOString()}>{exactTime(d.toISOString(), i18n.language)}</List.Item>
            ))}
          </List>
        </div>
      )}
    </Stack>
  );
}
