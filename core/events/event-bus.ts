import { EventEmitter } from 'node:events';

/** An application event: what SSE streams and notification channels receive. */
export interface AppEvent {
  type: string;
  title: string;
  body: string;
  fields: Record<string, string | number | boolean | null>;
  timestamp: string;
}

/**
 * In-process publish/subscribe. One instance per app; the scale-out mode bridges it over
 * PostgreSQL LISTEN/NOTIFY so every master's subscribers see every event.
 */
export class EventBus {
  readonly #emitter = new EventEmitter();

  constructor() {
    // SSE clients each subscribe; many open dashboards are normal, not a leak.
    this.#emitter.setMaxListeners(0);
  }

  publish(event: Omit<AppEvent, 'timestamp'> & { timestamp?: string }): void {
    this.#emitter.emit('event', { ...event, timestamp: event.timestamp ?? new Date().toISOString() });
  }

  subscribe(listener: (event: AppEvent) => void): () => void {
    this.#emitter.on('event', listener);
    return () => this.#emitter.off('event', listener);
  }
}
