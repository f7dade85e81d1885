// What the sandbox's behaviour (service.ts) reads and writes, as one interface: the SQL statements of this
// folder for one tenant (sqlStore), or the verifications kept in memory (memory.ts: the mock handlers of
// verispec/msw, which run the same behaviour without a database). No SQL and no Node built-in here.
import type { HostedFormRow } from "./forms.js";
import type { WrittenOutboxRow } from "./outbox.js";
import type { Api, HistoryRow, ResubmittableKind, Verification } from "./verifications.js";

/** One webhook row to store: [deliveryId, trace, url (null: no receiver), format, body, timestamp]. */
export type OutboxRowInput = readonly [string, string, string | null, string, string, number];

/** The webhooks of one write: one row per receiver, and the signature version they are sent with. */
export interface OutboxWrite {
  readonly rows: readonly OutboxRowInput[];
  readonly signatureVersion: string;
}

/** The reads and writes of one tenant, inside a transaction or on their own. */
export interface StoreOps {
  userIdOf(trace: string): Promise<string | null>;
  /** New verifications, their history rows and their webhooks; the outbox rows written. */
  insertVerifications(items: readonly { v: Verification; trigger: string }[], outbox: OutboxWrite): Promise<WrittenOutboxRow[]>;
  updateVerification(next: Verification, trigger: string, outbox: OutboxWrite | undefined): Promise<void>;
  lockLatestResubmittable(userId: string, kind: ResubmittableKind): Promise<Verification | undefined>;
  childrenOf(trace: string): Promise<Verification[]>;
  findVerification(trace: string): Promise<Verification | undefined>;
  lockVerification(trace: string, api?: Api): Promise<Verification | undefined>;
  claimDueVerifications(now: number, status: string, limit: number): Promise<Verification[]>;
  olderTraceOf(key: { trace?: string; userId?: string }): Promise<string | undefined>;
  latestVerifications(limit: number): Promise<Verification[]>;
  historyOf(trace: string): Promise<HistoryRow[]>;
  /** The histories of several verifications in one read (a page of /_sandbox/state). */
  historiesOf(traces: readonly string[]): Promise<Map<string, HistoryRow[]>>;
  latestWebhookBody(trace: string): Promise<string | undefined>;
  insertForm(id: string, request: Record<string, unknown>, now: number): Promise<void>;
  /** The form's row: request (JSON text), created_at, opens_since_save, attempts, trace. */
  lockForm(id: string): Promise<HostedFormRow | undefined>;
  countFormOpening(id: string): Promise<void>;
  saveFormAttempt(id: string, trace: string, request: Record<string, unknown>): Promise<void>;
  saveClockOffset(offset: number): Promise<void>;
  loadClockOffset(): Promise<number>;
  /** Moves the stored offset forward by `ms` in one step (beside other instances); undefined past `max`. */
  advanceClockOffset(ms: number, max: number): Promise<number | undefined>;
}

export interface ServiceStore extends StoreOps {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: StoreOps) => Promise<T>): Promise<T>;
}
