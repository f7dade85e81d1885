import { describe, expect, it } from "vitest";
import { summarise } from "../../bench/lib/cpu-profile.js";

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url }, children });

describe("bench/lib/cpu-profile summarise", () => {
  it("charges a builtin to its caller's category, JSON to JSON, and leaves idle out of the busy time", () => {
    const profile = {
      nodes: [
        frame(1, "(root)", "", [2, 3, 6, 8]),
        frame(2, "(idle)", ""),
        frame(3, "socketOnData", "node:_http_server", [4, 5]),
        frame(4, "writev", ""), // a builtin: its caller's (Node HTTP)
        frame(5, "stringify", ""), // JSON wherever it is called
        frame(6, "observe", "file:///x/dist/templates/sandbox/metrics.js", [7]),
        frame(7, "labels", "file:///x/node_modules/prom-client/lib/counter.js"),
        frame(8, "wasm-function[1]", "wasm://wasm/abc"),
      ],
      // sample i took timeDeltas[i] microseconds
      samples: [2, 2, 4, 3, 5, 7, 8, 8],
      timeDeltas: [5000, 5000, 2000, 1000, 1000, 1000, 2500, 2500],
      startTime: 0,
      endTime: 20_000,
    };
    const s = summarise(profile);
    expect(s.busyMs).toBe(10);
    expect(s.wallMs).toBe(20);
    expect(Object.fromEntries(s.shares)).toEqual({
      "Node HTTP, sockets, streams": 0.3,
      JSON: 0.1,
      "metrics (metrics.js, prom-client)": 0.1,
      "Postgres (WebAssembly)": 0.5,
    });
  });
});
