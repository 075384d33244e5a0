import { Text } from '@mantine/core';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { cronPreview } from './cron-preview.ts';

/** A task's next scheduled run (croner, in the schedule zone); a dash when disabled or unscheduled. */
export function NextRun({ cronExpr, enabled, timeZone }: { cronExpr: string; enabled: boolean; timeZone: string }) {
  const p = enabled ? cronPreview(cronExpr, { count: 1, timeZone }) : null;
  if (!p || p.kind !== 'valid' || !p.next[0])
    return (
      <Text span size="sm" c="dimmed">
        —
      </Text>
    );
  return <RelativeTime value={p.next[0].toISOString()} />;
}
