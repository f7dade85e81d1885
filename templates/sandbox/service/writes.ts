// Every state change the rooms make, each inside the caller's transaction (or one statement on its own):
// a new verification, its history row and its webhooks in the outbox; a change with its new timestamp and
// webhook. An answered request never loses its webhook: the outbox row commits with the change.
import { choice } from "../binding.js";
import type { QueuedRow } from "../dispatcher.js";
import { Group } from "../store/group.js";
import type { OutboxWrite, StoreOps } from "../store/port.js";
import type { Api, Verification } from "../store/verifications.js";
import type { ServiceCore } from "./core.js";
import { Payloads } from "./payloads.js";

/** A state change's webhook: its text and its outbox rows' values (one row per receiver; url null: none configured). */
interface Webhook {
  readonly text: string;
  readonly format: Api;
  readonly deliveryId: string;
  readonly urls: readonly (string | null)[];
}

/** A verification to insert and the trigger its history row names. */
export interface Insert {
  readonly v: Verification;
  readonly trigger: string;
}

export class Writes {
  private readonly payloads: Payloads;
  /** New verifications without a lookup (the common create), inserted together: one statement per group. */
  readonly created: Group<Insert, string>;

  constructor(private readonly core: ServiceCore) {
    this.payloads = new Payloads(core);
    this.created = new Group<Insert, string>(async (items) => {
      const { texts, queued } = await this.insert(core.db, items);
      if (queued.length) core.hooks.onQueued(queued);
      return texts;
    });
  }

  /** A new verification of `api` as the submit row starts it (its outcome picked by the test values). */
  newVerification(api: Api, init: Partial<Verification> & Pick<Verification, "type" | "name" | "request">, now: number): Verification {
    const { core } = this;
    const subject = { type: init.type, ...(init.parentTrace ? { parentTrace: init.parentTrace } : {}) };
    const outcomeText = init.outcome ?? init.name;
    return {
      trace: core.newId(),
      api,
      userId: null,
      submissionId: core.newId(),
      parentTrace: null,
      roles: null,
      subType: null,
      country: null,
      verificationStatus: core.pending,
      submissionStatus: choice<string>(core.binding.spec, "initialSubmissionStatus", "value"),
      attempt: core.binding.spec.attempts.startsAt,
      maxAttempts: null,
      dueAt: core.dueAt(now),
      formId: null,
      createdAt: now,
      updatedAt: now,
      ...init,
      outcome: core.pickOutcome(outcomeText, subject),
    };
  }

  /** New verifications, their history rows and their webhooks in the outbox: one statement. Returns each webhook's text and the outbox rows queued for a receiver. */
  async insert(tx: StoreOps, items: readonly Insert[]): Promise<{ texts: string[]; queued: QueuedRow[] }> {
    const webhooks = [];
    for (const { v } of items) webhooks.push({ v, webhook: await this.webhookOf(tx, v) });
    const write = this.outboxParams(webhooks);
    const written = await tx.insertVerifications(items, write);
    // The bodies are the texts at hand: not read back from the database; nor is the rest of each row (no tries yet).
    const bodies = new Map(webhooks.map(({ webhook }) => [webhook.deliveryId, webhook.text]));
    // The store queues exactly the rows that have a receiver (the others are written no_receiver).
    const queued = written
      .filter((row): row is typeof row & { url: string } => row.url !== null)
      .map(
        (row): QueuedRow => ({
          id: row.id,
          tenant: this.core.tenant,
          deliveryId: row.deliveryId,
          url: row.url,
          body: bodies.get(row.deliveryId)!,
          signatureVersion: write.signatureVersion,
          tries: 0,
        }),
      );
    return { texts: webhooks.map(({ webhook }) => webhook.text), queued };
  }

  /**
   * Applies a change: new timestamp (always increasing per verification), history row, webhook in the outbox: one statement.
   * A change into a status that sends no webhook (statuses.yaml sendsWebhook: false) queues none; its text is then "".
   */
  async change(tx: StoreOps, v: Verification, patch: Partial<Verification>, trigger: string): Promise<{ v: Verification; text: string }> {
    const next: Verification = { ...v, ...patch, updatedAt: Math.max(this.core.clock.now(), v.updatedAt + 1) };
    const webhook = this.core.binding.spec.silentStatuses.includes(next.verificationStatus) ? undefined : await this.webhookOf(tx, next);
    await tx.updateVerification(next, trigger, webhook ? this.outboxParams([{ v: next, webhook }]) : undefined);
    return { v: next, text: webhook?.text ?? "" };
  }

  /** The webhook of a state change. */
  private async webhookOf(tx: StoreOps, v: Verification): Promise<Webhook> {
    const parentUserId = v.parentTrace ? await tx.userIdOf(v.parentTrace) : null;
    // An older entity's stakeholder items carry its individuals' own statuses (none stored yet at its creation).
    const children = v.api === "older" && !v.parentTrace && Array.isArray(v.request.stakeholders) ? await tx.childrenOf(v.trace) : [];
    const { format, text } = this.payloads.text(v, parentUserId, children);
    const urls = this.core.options.webhookUrls;
    return { text, format, deliveryId: this.core.newId(), urls: urls.length ? [...urls] : [null] };
  }

  private outboxParams(webhooks: readonly { v: Verification; webhook: Webhook }[]): OutboxWrite {
    const rows = webhooks.flatMap(({ v, webhook }) =>
      webhook.urls.map((url) => [webhook.deliveryId, v.trace, url, webhook.format, webhook.text, v.updatedAt] as const),
    );
    return { rows, signatureVersion: this.core.options.signatureVersion };
  }
}
