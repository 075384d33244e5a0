import { EventEmitter } from 'node:events';

/** An application event: what SSE streams and notification channels receive. */
export interface AppEvent {
  /** `bootEpoch * BOOT_ID_STRIDE + n`: grows within a boot and from one boot to the next (see `EventBus`). */
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
 * Ids of one boot occupy `[epoch * stride + 1, (epoch + 1) * stride)`. A decimal power so an id
 * reads as boot and number (`3000000017` is boot 3's 17th event); with ids kept below 2^53 this
 * allows 9,007,198 boots of up to 999,999,999 events each.
 */
export const BOOT_ID_STRIDE = 1_000_000_000;
const MAX_EPOCH = Math.floor(Number.MAX_SAFE_INTEGER / BOOT_ID_STRIDE) - 1;

/**
 * In-process publish/subscribe: one instance per app, holding the last 256 events for clients
 * that reconnect. It is not shared between processes: in scale-out mode each master's
 * subscribers see the events that master published.
 *
 * Ids stay monotonic across restarts: each boot takes the next epoch from the database
 * (`nextBootEpoch`), and every id of a boot is greater than every id of an earlier one.
 */
export class EventBus {
  readonly #emitter = new EventEmitter();
  readonly #recent: AppEvent[] = [];
  readonly #firstId: number;
  #nextId: number;

  constructor(bootEpoch: number) {
    if (!Number.isSafeInteger(bootEpoch) || bootEpoch < 1 || bootEpoch > MAX_EPOCH) throw new Error(`boot epoch out of range (1..${MAX_EPOCH}): ${bootEpoch}`);
    this.#firstId = bootEpoch * BOOT_ID_STRIDE + 1;
    this.#nextId = this.#firstId;
    // SSE clients each subscribe; many open dashboards are normal, not a leak.
    this.#emitter.setMaxListeners(0);
  }

  publish(event: Omit<AppEvent, 'timestamp' | 'id'> & { timestamp?: string }): AppEvent {
    // Past BOOT_ID_STRIDE events in one boot, ids run into the next boot's range; at the rate
    // events are published (run outcomes, target health) that is not reached.
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

  /**
   * What a client that last saw `lastEventId` missed, oldest first. An id this boot issued gets
   * the buffered events after it; anything else (`0`, an id of an earlier boot or of another
   * master, a value that is not an id) gets the whole buffer, since every buffered event is newer
   * than what such a client could have seen from this process.
   */
  since(lastEventId: string): AppEvent[] {
    const last = /^\d{1,16}$/.test(lastEventId) ? Number(lastEventId) : Number.NaN;
    const issuedHere = last >= this.#firstId && last < this.#nextId;
    return issuedHere ? this.#recent.filter((e) => e.id > last) : [...this.#recent];
  }
}
