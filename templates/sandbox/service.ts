// The sandbox's behaviour, over a store and a clock: one service per account, its rooms in service/, one job
// each — v5.ts (create, resubmit, detail), older.ts (/verify, status, follow-up), control.ts (processing,
// the control API's transitions, the clock), forms.ts (the hosted form's life cycle), reads.ts (the control
// API's pages, the re-send); writes.ts and payloads.ts write every change with its webhooks; core.ts reads
// every rule and text from the binding. Every state change writes its webhooks to the outbox in the same
// transaction, so an answered request never loses its webhook.
import type { QueuedRow } from "./dispatcher.js";
import { ControlOperations } from "./service/control.js";
import { type Body, ServiceCore, type ServiceOptions } from "./service/core.js";
import { FormOperations } from "./service/forms.js";
import { OlderOperations } from "./service/older.js";
import { V5Operations } from "./service/v5.js";
import { Writes } from "./service/writes.js";
import type { HistoryRow, Verification } from "./store/verifications.js";

export {
  olderStakeholderSubmissionId,
  olderStakeholderTrace,
  ServiceError,
  subjectOf,
  withoutCredentials,
  type ServiceOptions,
} from "./service/core.js";
export { toVerification, type Api, type Verification } from "./store/verifications.js";

export class SandboxService {
  /**
   * The rooms' shared state. The control API's pages and the re-send (service/reads.ts, built on this by
   * the server's handlers) are not part of this facade: they seal cursors with node:crypto, and verispec/msw
   * runs this service in a browser.
   */
  readonly core: ServiceCore;
  private readonly v5: V5Operations;
  private readonly older: OlderOperations;
  private readonly control: ControlOperations;
  private readonly forms: FormOperations;

  constructor(options: ServiceOptions) {
    const core = (this.core = new ServiceCore(options));
    const writes = new Writes(core);
    this.v5 = new V5Operations(core, writes);
    this.older = new OlderOperations(core, writes);
    this.control = new ControlOperations(core, writes);
    this.forms = new FormOperations(core, writes, this.older);
  }

  /** The tenant whose rows this service reads and writes (store statements name it in their WHERE clauses). */
  get tenant(): string {
    return this.core.tenant;
  }

  /** Called after a commit that queued webhooks or scheduled processing (wakes the dispatcher). */
  get onChange(): () => void {
    return this.core.hooks.onChange;
  }

  set onChange(hook: () => void) {
    this.core.hooks.onChange = hook;
  }

  /**
   * Called with the outbox rows of new verifications once their group has committed: each is the first
   * webhook of its trace, so nothing orders before it and the dispatcher may send it without a claim.
   */
  get onQueued(): (rows: readonly QueuedRow[]) => void {
    return this.core.hooks.onQueued;
  }

  set onQueued(hook: (rows: readonly QueuedRow[]) => void) {
    this.core.hooks.onQueued = hook;
  }

  // ---- rules and refusals (core.ts) ----

  pickOutcome(text: string | undefined, subject: Record<string, unknown>): string {
    return this.core.pickOutcome(text, subject);
  }

  errorOf(type: string): { httpStatus: number; message: string } {
    return this.core.errorOf(type);
  }

  notFound(what: string, values: Readonly<Record<string, string>> = {}) {
    return this.core.notFound(what, values);
  }

  // ---- v5 (v5.ts) ----

  createV5(body: Body): Promise<{ trace: string }> {
    return this.v5.create(body);
  }

  get(trace: string): Promise<Verification | undefined> {
    return this.core.db.findVerification(trace);
  }

  detail(v: Verification): Body {
    return this.v5.detail(v);
  }

  // ---- older endpoints (older.ts) ----

  verifyOlder(body: Body): Promise<{ trace: string; text: string }> {
    return this.older.verify(body);
  }

  latestOlder(key: { trace?: string; userId?: string }): Promise<string | undefined> {
    return this.older.latest(key);
  }

  followUp(verificationUuid: string): Promise<string> {
    return this.older.followUp(verificationUuid);
  }

  // ---- processing, the control API and the clock (control.ts) ----

  processDue(): Promise<number> {
    return this.control.processDue();
  }

  applyStatus(trace: string, to: string, opts: { maxAttempts?: number; trigger?: string }): Promise<Verification> {
    return this.control.applyStatus(trace, to, opts);
  }

  setClockOffset(offset: number): Promise<void> {
    return this.control.setClockOffset(offset);
  }

  loadClockOffset(): Promise<number> {
    return this.control.loadClockOffset();
  }

  refreshClock(): Promise<void> {
    return this.control.refreshClock();
  }

  advanceClock(ms: number): Promise<boolean> {
    return this.control.advanceClock(ms);
  }

  // ---- hosted forms (forms.ts) ----

  createForm(body: Body): Promise<string> {
    return this.forms.create(body);
  }

  openForm(id: string): Promise<{ request: Body; reduced: boolean; trace: string | null }> {
    return this.forms.open(id);
  }

  readForm(id: string): Promise<{ request: Body; reduced: boolean }> {
    return this.forms.read(id);
  }

  submitForm(id: string, request: Body): Promise<string> {
    return this.forms.submit(id, request);
  }

  // ---- reading for the control API and the page ----

  list(limit = 200): Promise<Verification[]> {
    return this.core.db.latestVerifications(limit);
  }

  historyOf(trace: string): Promise<HistoryRow[]> {
    return this.core.db.historyOf(trace);
  }

  /** The histories of a page's verifications, one statement for the page (not one per verification). */
  historiesOf(traces: readonly string[]): Promise<Map<string, HistoryRow[]>> {
    return this.core.db.historiesOf(traces);
  }
}
