// Group commit: writes that arrive while the database is busy wait and go together in one statement, so
// one commit (PGlite's per-statement cost, about 0.5 ms) serves many requests. Each caller's promise
// settles only after the statement that holds its write has committed. When a group fails, each write
// is tried alone, so one bad write does not fail the others.
/** setImmediate where there is one (Node); a browser (verispec/msw) has only timers. */
const later: (fn: () => void) => void = globalThis.setImmediate ?? ((fn) => void setTimeout(fn, 0));

export class Group<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private running = false;

  /** `write` stores every item in one atomic statement and returns one result per item, in order. */
  constructor(private readonly write: (items: readonly T[]) => Promise<readonly R[]>) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // setImmediate: requests parsed in the same turn of the event loop join the first group.
      if (!this.running) {
        this.running = true;
        later(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const group = this.queue;
      this.queue = [];
      try {
        const results = await this.write(group.map((g) => g.item));
        group.forEach((g, i) => g.resolve(results[i]!));
      } catch (err) {
        if (group.length === 1) group[0]!.reject(err);
        else for (const g of group) await this.write([g.item]).then((r) => g.resolve(r[0]!), g.reject);
      }
    }
    this.running = false;
  }
}
