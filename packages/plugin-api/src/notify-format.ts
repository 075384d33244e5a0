import type { NotificationSeverity } from './contracts.ts';

/** One colour per severity (hex `#rrggbb`), so every chat service shows an event alike. */
export const SEVERITY_COLOURS: Record<NotificationSeverity, string> = {
  error: '#d32f2f',
  warning: '#f57c00',
  success: '#388e3c',
  info: '#1976d2',
};

/** `text` cut to at most `max` characters, with an ellipsis when cut (services refuse longer fields). */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** Text safe inside HTML (Telegram's and Matrix's HTML messages, email). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The message's fields worth showing: set, and not the event type or time the message already carries. */
export function shownFields(fields: Record<string, string | number | boolean | null>): Array<[string, string]> {
  return Object.entries(fields)
    .filter(([k, v]) => v !== null && v !== '' && k !== 'eventType' && k !== 'timestamp')
    .map(([k, v]) => [k, String(v)]);
}
