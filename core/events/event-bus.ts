import { EventEmitter } from 'node:events';

/** An application event: what SSE streams and notification channels receive. */
export interface AppEvent {
  /** Monotonic per process; SSE clients resume with it (`Last-Event-ID`). */
  id: number;
  type: string;
  title: string;
  body: string;
  fields: Record<string, string | number | boolean | null>;
  timestamp: string;
}

/** How many recent events are kept for clients that reconnect. */
const REPLAY_BUFFER = 256;

/**
 * In-process publish/subscribe. One instance per app; the scale-out mode bridges it over
 * PostgreSQL LISTEN/NOTIFY so every master's subscribers see every event.
 */
export class EventBus {
  readonly #emitter = new EventEmitter();
  readonly #recent: AppEvent[] = [];
  #nextId = 1;

  constructor() {
    // SSE clients each subscribe; many open dashboards are normal, not a leak.
    this.#emitter.setMaxListeners(0);
  }

  publish(event: Omit<AppEvent, 'timestamp' | 'id'> & { timestamp?: string }): AppEvent {
    const full: AppEvent = { ...event, id: this.#nextId++, timestamp: event.timestamp ?? new Date().toISOString() };
    this.#recent.push(full);
    if (this.#recent.length > REPLAY_BUFFER) this.#recent.shift();
    this.#emitter.emit('event', full);
    return full;
  }

  subscribe(listener: (event: AppEvent) => void): () => void {
    this.#emitter.on('event', listener);
    return () => this.#emitter.off('event', listener);
  }

  /** Buffered events newer than `afterId`, oldest first. */
  since(afterId: number): AppEvent[] {
    return this.#recent.filter((e) => e.id > afterId);
  }
}
