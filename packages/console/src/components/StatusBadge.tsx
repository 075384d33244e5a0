import { Badge } from '@mantine/core';

const COLOURS: Record<string, string> = {
  success: 'green',
  succeeded: 'green',
  delivered: 'green',
  online: 'green',
  healthy: 'green',
  ok: 'green',
  enabled: 'green',
  running: 'blue',
  queued: 'gray',
  pending: 'gray',
  claimed: 'blue',
  sending: 'blue',
  partial: 'orange',
  warning: 'orange',
  degraded: 'orange',
  held: 'orange',
  coalesced: 'gray',
  digested: 'gray',
  failed: 'red',
  error: 'red',
  offline: 'red',
  unhealthy: 'red',
  cancelled: 'gray',
  disabled: 'gray',
  deleted: 'gray',
};

/** A status word (run, copy, delivery, node) in a colour that also reads without colour: the word itself. */
export function StatusBadge({ status }: { status: string | null | undefined }) {
  const s = status ?? 'unknown';
  return (
    <Badge color={COLOURS[s.toLowerCase()] ?? 'gray'} variant="light" data-status={s}>
      {s}
    </Badge>
  );
}
