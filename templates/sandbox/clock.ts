// The sandbox clock: real time plus an offset the control API advances (POST /_sandbox/clock). Every
// business time (timestamps, form lifetime, processing deadlines) asks it; delivery retries and leases
// use real time, because they are about real network I/O. The offset is bounded (spec/sandbox.yaml
// controlApi.maxClockOffsetMs), so that every time it gives is a valid date and a valid payload timestamp.
export class SandboxClock {
  constructor(
    private offsetMs = 0,
    readonly maxOffsetMs = Number.MAX_SAFE_INTEGER,
  ) {}

  now(): number {
    return Date.now() + this.offsetMs;
  }

  get offset(): number {
    return this.offsetMs;
  }

  /** Whether `offsetMs` is an offset this clock may take. */
  allows(offsetMs: unknown): offsetMs is number {
    return Number.isSafeInteger(offsetMs) && (offsetMs as number) >= 0 && (offsetMs as number) <= this.maxOffsetMs;
  }

  /** Moves the clock forward; returns the new offset. */
  advance(ms: number): number {
    if (!Number.isSafeInteger(ms) || ms < 0 || !this.allows(this.offsetMs + ms))
      throw new RangeError(`advanceMs must be an integer from 0 to ${this.maxOffsetMs - this.offsetMs}`);
    this.offsetMs += ms;
    return this.offsetMs;
  }

  set(offsetMs: number): void {
    if (!this.allows(offsetMs)) throw new RangeError(`a clock offset must be an integer from 0 to ${this.maxOffsetMs}`);
    this.offsetMs = offsetMs;
  }
}
