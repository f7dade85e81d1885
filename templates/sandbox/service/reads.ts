// What the control API and the page read (their pages of verifications and deliveries) and the manual
// re-send, over the SQL store of one tenant: the handlers reach the store only through here.
import { deliveriesPage, verificationsPage, type Browse } from "../browse.js";
import { describeDeliveries, resend } from "../deliveries.js";
import { formTenant } from "../store/forms.js";
import { outboxRowsOfTraces } from "../store/outbox.js";
import type { Db } from "../store/sql.js";
import type { Verification } from "../store/verifications.js";
import type { ServiceCore } from "./core.js";

/** The tenant whose form `id` is, or undefined (a form id is a capability: it is found by its id alone). */
export function tenantOfForm(db: Db, id: string): Promise<string | undefined> {
  return formTenant(db, id);
}

export class ControlReads {
  constructor(private readonly core: ServiceCore) {}

  private get sql(): Db {
    const { db } = this.core.options;
    if (db === undefined) throw new Error("sandbox bug: the control API's pages need the SQL store");
    return db;
  }

  /**
   * One page of the tenant's verifications (the filter and cursor of `browse`) with their histories, and the
   * deliveries of those; unfiltered, the latest `deliveryRows` deliveries.
   */
  async statePage(
    browse: Browse,
    deliveryRows: number,
    details: (v: Verification) => Record<string, unknown>,
  ): Promise<{ verifications: Record<string, unknown>[]; nextCursor: string | null; deliveries: Record<string, unknown>[] }> {
    const { tenant } = this.core;
    const page = await verificationsPage(this.sql, tenant, browse);
    const shown = page.items.map((row) => row.verification);
    const histories = await this.core.db.historiesOf(shown.map((v) => v.trace));
    const verifications = shown.map((v) => ({ ...details(v), api: v.api, userId: v.userId, history: histories.get(v.trace) ?? [] }));
    const filtered = browse.trace || browse.userId || browse.status || browse.cursor;
    const deliveries = filtered ? await this.deliveriesOf(shown.map((v) => v.trace)) : (await deliveriesPage(this.sql, tenant, { limit: deliveryRows })).items;
    return { verifications, nextCursor: page.nextCursor, deliveries };
  }

  /** Every delivery of these traces (a page's verifications) of the tenant, newest first. */
  private async deliveriesOf(traces: readonly string[]): Promise<Record<string, unknown>[]> {
    return traces.length ? describeDeliveries(this.sql, await outboxRowsOfTraces(this.sql, this.core.tenant, traces, 500)) : [];
  }

  /** One page of the tenant's deliveries. */
  deliveries(browse: Browse): ReturnType<typeof deliveriesPage> {
    return deliveriesPage(this.sql, this.core.tenant, browse);
  }

  /** Re-sends a delivery (a new outbox row, same bytes); -1 when the tenant has none with that id. */
  resend(deliveryId: string): Promise<number> {
    return resend(this.sql, this.core.tenant, deliveryId);
  }
}
