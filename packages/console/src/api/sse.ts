import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { authHeaders } from './session.ts';
import { apiErrorOf } from './api-error.ts';

/**
 * Reads a server-sent event stream with fetch, because EventSource cannot send the bearer token.
 * Resolves when the server ends the stream (a finished run's log ends it) or `signal` aborts.
 */
export async function readEventStream(
  path: string,
  onEvent: (event: EventSourceMessage) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(path, { headers: { ...authHeaders(), accept: 'text/event-stream' }, signal });
  if (!response.ok || !response.body) throw apiErrorOf(response.status, await response.json().catch(() => undefined));
  const parser = createParser({ onEvent });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  } catch (err) {
    if (signal.aborted) return;
    throw err;
  }
}
