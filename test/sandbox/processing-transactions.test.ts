// Processing (issue 39 item 1): each due verification is completed in a transaction of its own, so on
// PGlite's one connection another client's statement is answered between two of them (before, up to 100
// due verifications, each read whole and written again with its webhook, held the connection in one
// transaction: a 1 MiB one made another client wait 463 ms).
import { describe, expect, it } from "vitest";
import type { Db } from "../../templates/sandbox/store/index.js";
import { v5Individual } from "./helpers.js";
import { testService, useMemoryDb } from "./inprocess.js";

/** `db`, recording each transaction's begin and commit and its changes of a verification; after the first commit that changed one, another client's statement is sent. */
function watched(db: Db, events: string[]): Db {
  let n = 0;
  let otherSent = false;
  return {
    kind: db.kind,
    exclusive: db.exclusive,
    close: () => db.close(),
    query: (text, params) => db.query(text, params),
    transaction: async (fn) => {
      const id = ++n;
      let changed = false;
      events.push(`begin ${id}`);
      const result = await db.transaction((tx) =>
        fn({
          query: (text, params) => {
            if (/UPDATE verifications SET verification_status/.test(text)) {
              changed = true;
              events.push(`change ${id}`);
            }
            return tx.query(text, params);
          },
        }),
      );
      events.push(`commit ${id}`);
      if (changed && !otherSent) {
        otherSent = true;
        void db.query("SELECT 1").then(() => events.push("other"));
      }
      return result;
    },
  };
}

describe("processing on PGlite", { timeout: 120_000 }, () => {
  let db: Db;
  useMemoryDb((opened) => {
    db = opened;
  });

  it("completes each due verification in a transaction of its own; another statement is answered between two", async () => {
    const events: string[] = [];
    const service = testService(watched(db, events), { processingMs: 1 });
    const traces = [];
    for (const name of ["Due One", "Due Two", "Due Three"])
      traces.push((await service.createV5(v5Individual(name) as unknown as Record<string, unknown>)).trace);
    await new Promise((r) => setTimeout(r, 20));
    events.length = 0;
    expect(await service.processDue()).toBe(3);
    const changes = events.filter((e) => e.startsWith("change "));
    expect(changes).toHaveLength(3);
    // One change per transaction.
    expect(new Set(changes).size).toBe(3);
    // The other client's statement, sent when the first change committed, answered before the last change began.
    expect(events.indexOf("other")).toBeGreaterThan(-1);
    expect(events.indexOf("other")).toBeLessThan(events.indexOf(changes[2]!));
    for (const trace of traces) expect((await service.get(trace))!.dueAt).toBeNull();
    expect(await service.processDue()).toBe(0);
  });
});
