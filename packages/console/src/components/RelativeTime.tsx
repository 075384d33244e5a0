import { Tooltip, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { exactTime, relativeTime } from '../lib/time.ts';

/** "3 minutes ago", with the exact local time in a tooltip and in the <time> element. */
export function RelativeTime({ value, size = 'sm' }: { value: string | null | undefined; size?: string }) {
  const { t, i18n } = useTranslation();
  if (!value)
    return (
      <Text span size={size} c="dimmed">
        {t('never')}
      </Text>
    );
  return (
    <Tooltip label={exactTime(value, i18n.language)} withArrow>
      <Text span size={size}>
        <time dateTime={value}>{relativeTime(value, Date.now(), i18n.language)}</time>
      </Text>
    </Tooltip>
  );
}
