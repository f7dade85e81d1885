// The sandbox's group commit (templates/sandbox/store/group.ts): writes arriving together go in one call;
// each caller settles only after that call; a failing group is retried write by write, so one bad write
// fails alone.
import { describe, expect, it } from "vitest";
import { Group } from "../../templates/sandbox/store/group.js";

describe("Group", () => {
  it("writes concurrent items in one call and answers each with its own result", async () => {
    const calls: number[][] = [];
    const group = new Group<number, string>(async (items) => {
      calls.push([...items]);
      return items.map((i) => `r${i}`);
    });
    expect(await Promise.all([1, 2, 3].map((i) => group.add(i)))).toEqual(["r1", "r2", "r3"]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it("items added while a write runs form the next group", async () => {
    const calls: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const group = new Group<number, number>(async (items) => {
      calls.push([...items]);
      if (calls.length === 1) await first;
      return [...items];
    });
    const a = group.add(1);
    await new Promise((r) => setImmediate(r));
    const rest = [group.add(2), group.add(3)];
    // Not written beside the running write, even a turn of the event loop later.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([[1]]);
    release();
    expect(await Promise.all([a, ...rest])).toEqual([1, 2, 3]);
    expect(calls).toEqual([[1], [2, 3]]);
  });

  it("a failing group is retried item by item: only the bad item fails", async () => {
    const calls: number[][] = [];
    const group = new Group<number, number>(async (items) => {
      calls.push([...items]);
      if (items.includes(2)) throw new Error("bad item");
      return items.map((i) => i * 10);
    });
    const results = await Promise.allSettled([1, 2, 3].map((i) => group.add(i)));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([10, "bad item", 30]);
    expect(calls).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it("a lone write that fails is not tried again", async () => {
    let calls = 0;
    const group = new Group<number, number>(async () => {
      calls++;
      throw new Error(`try ${calls}`);
    });
    await expect(group.add(1)).rejects.toThrow("try 1");
    expect(calls).toBe(1);
  });
});
