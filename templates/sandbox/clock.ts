// The sandbox clock: real time plus an offset the control API advances (POST /_sandbox/clock). Every
// business time (timestamps, form lifetime, processing deadlines) asks it; delivery retries and leases
// use real time, because they are about real network I/O.
export class SandboxClock {
  constructor(private offsetMs = 0) {}

  now(): number {
    return Date.now() + this.offsetMs;
  }

  get offset(): number {
    return this.offsetMs;
  }

  /** Moves the clock forward; returns the new offset. */
  advance(ms: number): number {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError("advanceMs must be a non-negative integer");
    this.offsetMs += ms;
    return this.offsetMs;
  }

  set(offsetMs: number): void {
    this.offsetMs = offsetMs;
  }
}
