// A ServiceStore in memory: the sandbox's behaviour (service.ts) without a database, for the mock handlers
// of verispec/msw. One tenant; a transaction works on a copy of the state, kept when it resolves and
// dropped when it throws (as a database rolls back). Each operation answers as its statement does.
import type { OutboxWrite, ServiceStore, StoreOps } from "./port.js";
import { advancedOffset, offsetOps, type ClockOps } from "./clock.js";
import { toHostedForm } from "./forms.js";
import type { WrittenOutboxRow } from "./outbox.js";
import type { Api, HistoryRow, Verification } from "./verifications.js";

/** A history row and the verification it belongs to. */
interface StoredHistoryRow extends HistoryRow {
  readonly trace: string;
}

interface StoredOutboxRow {
  readonly id: number;
  readonly trace: string;
  readonly delivery_id: string;
  readonly url: string | null;
  readonly format: string;
  readonly body: string;
  readonly signature_version: string;
}

interface FormRow {
  readonly id: string;
  readonly request: string;
  readonly created_at: number;
  readonly opens_since_save: number;
  readonly attempts: number;
  readonly trace: string | null;
}

/** What the store holds; every value is replaced, never changed in place, so a copy of the containers is a snapshot. */
export interface MemoryState {
  /** In insertion order (the database's `seq`). */
  verifications: Map<string, Verification>;
  history: StoredHistoryRow[];
  outbox: StoredOutboxRow[];
  forms: Map<string, FormRow>;
  clockOffset: number;
}

const emptyState = (): MemoryState => ({ verifications: new Map(), history: [], outbox: [], forms: new Map(), clockOffset: 0 });
const copyState = (state: MemoryState): MemoryState => ({
  verifications: new Map(state.verifications),
  history: [...state.history],
  outbox: [...state.outbox],
  forms: new Map(state.forms),
  clockOffset: state.clockOffset,
});

type State = () => MemoryState;

const newestOf = (state: State, filter: (v: Verification) => boolean) => [...state().verifications.values()].filter(filter).reverse();

const historyRow = (v: Verification, trigger: string): StoredHistoryRow => ({
  trace: v.trace,
  verification_status: v.verificationStatus,
  submission_status: v.submissionStatus,
  attempt: v.attempt,
  trigger,
  at: v.updatedAt,
});

/** Appends the outbox rows of a write, and answers them as the outbox statement returns them. */
function enqueue(state: MemoryState, outbox: OutboxWrite): WrittenOutboxRow[] {
  return outbox.rows.map(([deliveryId, trace, url, format, body]) => {
    const row: StoredOutboxRow = {
      id: state.outbox.length + 1,
      trace,
      delivery_id: deliveryId,
      url,
      format,
      body,
      signature_version: outbox.signatureVersion,
    };
    state.outbox.push(row);
    return { id: row.id, deliveryId, url, state: url === null ? "no_receiver" : "queued" };
  });
}

type VerificationOps = Pick<
  StoreOps,
  | "userIdOf"
  | "insertVerifications"
  | "updateVerification"
  | "lockLatestResubmittable"
  | "childrenOf"
  | "findVerification"
  | "lockVerification"
  | "claimDueVerifications"
  | "olderTraceOf"
  | "latestVerifications"
>;

/** Verifications: written with their history and outbox rows, and found by trace, user, parent or due time. */
function verificationOps(state: State): VerificationOps {
  const newest = (filter: (v: Verification) => boolean) => newestOf(state, filter);
  return {
    userIdOf: async (trace) => state().verifications.get(trace)?.userId ?? null,
    insertVerifications: async (items, outbox) => {
      for (const { v, trigger } of items) {
        if (state().verifications.has(v.trace)) throw new Error(`duplicate trace ${v.trace}`);
        state().verifications.set(v.trace, v);
        state().history.push(historyRow(v, trigger));
      }
      return enqueue(state(), outbox);
    },
    updateVerification: async (next, trigger, outbox) => {
      state().verifications.set(next.trace, next);
      state().history.push(historyRow(next, trigger));
      if (outbox) enqueue(state(), outbox);
    },
    lockLatestResubmittable: async (userId, kind) =>
      newest((v) => v.userId === userId && v.api === "v5" && v.parentTrace === null && v.type === kind.type && v.subType === kind.subType)[0],
    childrenOf: async (trace) => newest((v) => v.parentTrace === trace).reverse(),
    findVerification: async (trace) => state().verifications.get(trace),
    lockVerification: async (trace, api?: Api) => {
      const v = state().verifications.get(trace);
      return v && (api === undefined || v.api === api) ? v : undefined;
    },
    claimDueVerifications: async (now, status, limit) =>
      newest((v) => v.dueAt !== null && v.dueAt <= now && v.verificationStatus === status)
        .sort((a, b) => a.dueAt! - b.dueAt!)
        .slice(0, Math.max(0, Math.floor(limit))),
    olderTraceOf: async (key) =>
      key.trace !== undefined
        ? newest((v) => v.trace === key.trace && v.api === "older")[0]?.trace
        : newest((v) => v.userId === key.userId && v.api === "older")[0]?.trace,
    latestVerifications: async (limit) => newest(() => true).slice(0, limit),
  };
}

/** The history of verifications, and the last webhook body of one. */
function historyOps(state: State): Pick<StoreOps, "historyOf" | "historiesOf" | "latestWebhookBody"> {
  const historyOf = (trace: string) =>
    state()
      .history.filter((row) => row.trace === trace)
      .map(({ trace: _trace, ...entry }): HistoryRow => entry);
  return {
    historyOf: async (trace) => historyOf(trace),
    historiesOf: async (traces) => new Map(traces.map((trace) => [trace, historyOf(trace)])),
    latestWebhookBody: async (trace) =>
      state()
        .outbox.filter((row) => row.trace === trace)
        .at(-1)?.body,
  };
}

/** The hosted forms: created, read, their openings counted and their attempts saved. */
function formOps(state: State): Pick<StoreOps, "insertForm" | "lockForm" | "countFormOpening" | "saveFormAttempt"> {
  const form = (id: string, patch: (stored: FormRow) => Partial<FormRow>) => {
    const stored = state().forms.get(id);
    if (stored) state().forms.set(id, { ...stored, ...patch(stored) });
  };
  return {
    insertForm: async (id, request, now) =>
      void state().forms.set(id, {
        id,
        request: JSON.stringify(request),
        created_at: now,
        opens_since_save: 0,
        attempts: 0,
        trace: null,
      }),
    lockForm: async (id) => {
      const stored = state().forms.get(id);
      return stored ? toHostedForm({ ...stored }) : undefined;
    },
    countFormOpening: async (id) => form(id, (f) => ({ opens_since_save: f.opens_since_save + 1 })),
    saveFormAttempt: async (id, trace, request) =>
      form(id, (f) => ({ opens_since_save: 0, attempts: f.attempts + 1, trace, request: JSON.stringify(request) })),
  };
}

/** The sandbox clock's offset, a field of the state: the clock's operations are store/clock.ts's. */
function clockOps(state: State): ClockOps {
  return offsetOps({
    read: async () => state().clockOffset,
    write: async (offset) => void (state().clockOffset = offset),
    addAtMost: async (ms, max) => {
      const next = advancedOffset(state().clockOffset, ms, max);
      if (next !== undefined) state().clockOffset = next;
      return next;
    },
  });
}

function ops(state: State): StoreOps {
  return { ...verificationOps(state), ...historyOps(state), ...formOps(state), ...clockOps(state) };
}

/** A store in memory, with its state readable (`state()`) and emptied (`reset()`). */
export interface MemoryStore extends ServiceStore {
  state(): Readonly<MemoryState>;
  reset(): void;
}

export function memoryStore(): MemoryStore {
  let current = emptyState();
  // Transactions run one at a time, as row locks would order them: each on its own copy.
  let queue: Promise<unknown> = Promise.resolve();
  const transaction = <T>(fn: (tx: StoreOps) => Promise<T>): Promise<T> => {
    const run = queue.then(async () => {
      const copy = copyState(current);
      const result = await fn(ops(() => copy));
      current = copy;
      return result;
    });
    queue = run.catch(() => {});
    return run;
  };
  // An operation on its own is a transaction of one: it waits for those before it.
  const single = Object.fromEntries(
    Object.keys(ops(() => current)).map((name) => [
      name,
      (...args: unknown[]) => transaction((tx) => (tx[name as keyof StoreOps] as (...a: unknown[]) => Promise<unknown>)(...args)),
    ]),
  ) as unknown as StoreOps;
  return {
    ...single,
    transaction,
    state: () => current,
    reset: () => {
      current = emptyState();
    },
  };
}
