import { EventEmitter } from 'node:events';
import type { Cluster } from '../db/cluster.ts';

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

/** NOTIFY payloads must stay under 8,000 bytes; an event's body is cut to fit. */
const MAX_NOTICE_BYTES = 7_000;

/**
 * Publish/subscribe for one app, holding the last 256 events for clients that reconnect.
 *
 * One master (embedded SQLite): events are delivered in process as they are published. Several
 * masters on PostgreSQL (`relay`): an event is published through the cluster (NOTIFY), numbered
 * from a sequence every master shares, and every master — the publishing one included —
 * delivers it when the notice arrives; an SSE client on any master sees every master's events,
 * with the same ids everywhere.
 *
 * Ids stay monotonic across restarts: each boot takes the next epoch from the database
 * (`nextBootEpoch`), and every id of a boot is greater than every id of an earlier one (the
 * shared sequence is raised to the boot's range when a master starts).
 */
export class EventBus {
  readonly #emitter = new EventEmitter();
  readonly #recent: AppEvent[] = [];
  readonly #firstId: number;
  /** One more than the newest id delivered. */
  #nextId: number;
  #relay: { cluster: Cluster; onError: (err: unknown) => void } | undefined;

  constructor(bootEpoch: number) {
    if (!Number.isSafeInteger(bootEpoch) || bootEpoch < 1 || bootEpoch > MAX_EPOCH)
      throw new Error(`boot epoch out of range (1..${MAX_EPOCH}): ${bootEpoch}`);
    this.#firstId = bootEpoch * BOOT_ID_STRIDE + 1;
    this.#nextId = this.#firstId;
    // SSE clients each subscribe; many open dashboards are normal, not a leak.
    this.#emitter.setMaxListeners(0);
  }

  /**
   * Publishes an event. Returns it as delivered in process; through a relay it returns
   * `undefined` (the database gives the id; the event is delivered when its notice comes back).
   */
  publish(event: Omit<AppEvent, 'timestamp' | 'id'> & { timestamp?: string }): AppEvent | undefined {
    const timestamp = event.timestamp ?? new Date().toISOString();
    if (this.#relay) {
      const relay = this.#relay;
      const notice = { ...event, timestamp };
      if (Buffer.byteLength(JSON.stringify(notice)) > MAX_NOTICE_BYTES) notice.body = `${notice.body.slice(0, 1000)}…`;
      void relay.cluster.notifyNumbered('backplane_events', JSON.stringify(notice)).catch(relay.onError);
      return undefined;
    }
    // Past BOOT_ID_STRIDE events in one boot, ids run into the next boot's range; at the rate
    // events are published (run outcomes, target health) that is not reached.
    return this.#deliver({ ...event, id: this.#nextId, timestamp });
  }

  /**
   * From now on events travel through the cluster (several masters on one database). Its
   * numbered notices count from this boot's range up, so ids stay above every earlier boot's.
   */
  relay(cluster: Cluster, onError: (err: unknown) => void): void {
    this.#relay = { cluster, onError };
    cluster.listen('backplane_events', (payload) => {
      const colon = payload.indexOf(':');
      const id = Number(payload.slice(0, colon));
      try {
        if (Number.isSafeInteger(id) && id >= this.#nextId)
          this.#deliver({ ...(JSON.parse(payload.slice(colon + 1)) as Omit<AppEvent, 'id'>), id });
      } catch (err) {
        onError(err);
      }
    });
  }

  #deliver(full: AppEvent): AppEvent {
    this.#nextId = full.id + 1;
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
   * What a client that last saw `lastEventId` missed, oldest first. An id delivered since this
   * boot began gets the buffered events after it; anything else (`0`, an id of an earlier boot, a
   * value that is not an id) gets the whole buffer, since every buffered event is newer than what
   * such a client could have seen.
   */
  since(lastEventId: string): AppEvent[] {
    const last = /^\d{1,16}$/.test(lastEventId) ? Number(lastEventId) : Number.NaN;
    const issuedHere = last >= this.#firstId && last < this.#nextId;
    return issuedHere ? this.#recent.filter((e) => e.id > last) : [...this.#recent];
  }
}
