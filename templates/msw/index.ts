// The package's entry `verispec/msw`: MSW 2 handlers answering as the service does, over the package's spec
// (generated/sandbox.ts), for frontend and unit tests (docs/msw.md). `msw` is an optional peer: this entry
// imports it, nothing else of the package does.
import { sandboxBinding } from "../../generated/sandbox.js";
import type { SandboxBinding } from "../sandbox/binding.js";
import { createMockHandlers, type MockOptions, type VerispecMock } from "./handlers.js";

export type { MockOptions, MockState, MockVerification, VerispecMock } from "./handlers.js";

/** Handlers for every operation of both interfaces, with their own verifications in memory (one set per call). */
export function createHandlers(options: MockOptions = {}): VerispecMock {
  return createMockHandlers(sandboxBinding as unknown as SandboxBinding, options);
}
