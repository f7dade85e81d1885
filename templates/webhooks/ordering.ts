/**
 * Dropping stale and re-delivered events, per verification `trace` (the service's specification, section 6.1):
 * "for a verification, `timestamp` always increases; a webhook with a lower timestamp than one
 * already processed describes an older state and can be discarded. Re-deliveries of one event carry
 * the same `timestamp` and `deliveryId`; a new value means a new change."
 */
import { payloadTimestampMs } from "./timestamp.js";

/** What is remembered per trace: the newest processed timestamp and the delivery ids seen at it. */
export interface OrderingRecord {
  readonly timestamp: number;
  readonly deliveryIds: readonly string[];
}

/** Pluggable state; may be async (a database, Redis). */
export interface OrderingState {
  get(trace: string): Promise<OrderingRecord | undefined> | OrderingRecord | undefined;
  set(trace: string, record: OrderingRecord): Promise<void> | void;
}

export interface MemoryOrderingStateOptions {
  /** Upper bound on remembered traces; the least recently updated is evicted first. Default 100 000. */
  readonly maxTraces?: number;
}

export class MemoryOrderingState implements OrderingState {
  readonly maxTraces: number;
  readonly #records = new Map<string, OrderingRecord>();

  constructor(options: MemoryOrderingStateOptions = {}) {
    const maxTraces = options.maxTraces ?? 100_000;
    if (!Number.isInteger(maxTraces) || maxTraces < 1) {
      throw new RangeError("MemoryOrderingState: maxTraces must be a positive integer");
    }
    this.maxTraces = maxTraces;
  }

  get size(): number {
    return this.#records.size;
  }

  get(trace: string): OrderingRecord | undefined {
    return this.#records.get(trace);
  }

  set(trace: string, record: OrderingRecord): void {
    this.#records.delete(trace); // re-insert so the Map's first key is the least recently updated
    if (this.#records.size >= this.maxTraces) {
      const oldest = this.#records.keys().next();
      if (!oldest.done) this.#records.delete(oldest.value);
    }
    this.#records.set(trace, record);
  }
}

export interface OrderingGuard {
  /**
   * True when the event should be processed, and records it as processed. `deliveryId` defaults to
   * the payload's `deliveryId` field when it is a string (the service's specification does not show where it is carried).
   */
  accept(payload: unknown, options?: { readonly deliveryId?: string }): Promise<boolean>;
}

/** Bound on delivery ids kept for one timestamp, so one trace cannot grow without limit. */
const MAX_IDS_PER_TIMESTAMP = 64;

/**
 * Creates a guard over `state` (in-memory by default). Calls for the same trace are serialised in
 * this process, so an async state sees no interleaved read-then-write; a state shared by several
 * processes must provide its own atomicity.
 */
export function createOrderingGuard(options: { readonly state?: OrderingState } = {}): OrderingGuard {
  const state = options.state ?? new MemoryOrderingState();
  const queues = new Map<string, Promise<unknown>>();

  async function decide(trace: string, timestamp: number, deliveryId: string | undefined): Promise<boolean> {
    const next = nextRecord(await state.get(trace), timestamp, deliveryId);
    if (next === undefined) return false;
    await state.set(trace, next);
    return true;
  }

  return {
    accept(payload, acceptOptions = {}) {
      let fields: ReturnType<typeof orderingFields>;
      try {
        fields = orderingFields(payload, acceptOptions.deliveryId);
      } catch (error) {
        return Promise.reject(error);
      }
      const { trace, timestamp, deliveryId } = fields;
      const previous = queues.get(trace) ?? Promise.resolve();
      const result = previous.then(() => decide(trace, timestamp, deliveryId));
      const settled = result.catch(() => undefined);
      queues.set(trace, settled);
      void settled.then(() => {
        if (queues.get(trace) === settled) queues.delete(trace);
      });
      return result;
    },
  };
}

/** The record after accepting this event, or undefined when the event must be dropped. */
export function nextRecord(last: OrderingRecord | undefined, timestamp: number, deliveryId: string | undefined): OrderingRecord | undefined {
  const ids = deliveryId === undefined ? [] : [deliveryId];
  if (last === undefined || timestamp > last.timestamp) return { timestamp, deliveryIds: ids };
  if (timestamp < last.timestamp) return undefined; // an older state (the service's specification, section 6.1)
  // Same timestamp: only a delivery id not seen yet is a new change; none at all reads as a re-delivery.
  if (deliveryId === undefined || last.deliveryIds.includes(deliveryId)) return undefined;
  return { timestamp, deliveryIds: [...last.deliveryIds, deliveryId].slice(-MAX_IDS_PER_TIMESTAMP) };
}

function orderingFields(payload: unknown, explicitDeliveryId: string | undefined): { trace: string; timestamp: number; deliveryId: string | undefined } {
  if (typeof payload !== "object" || payload === null) {
    throw new TypeError("ordering guard: payload must be an object");
  }
  const { trace, deliveryId } = payload as { trace?: unknown; deliveryId?: unknown };
  if (typeof trace !== "string" || trace === "") {
    throw new TypeError("ordering guard: payload has no trace");
  }
  const timestamp = payloadTimestampMs(payload);
  if (timestamp === undefined) {
    throw new TypeError("ordering guard: payload has no numeric timestamp");
  }
  const fromPayload = typeof deliveryId === "string" && deliveryId !== "" ? deliveryId : undefined;
  return { trace, timestamp, deliveryId: explicitDeliveryId ?? fromPayload };
}
