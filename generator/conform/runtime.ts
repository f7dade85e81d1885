// What conform needs of the generated runtime (the package's own validators and webhook kit), handed in by
// the command so that generator/conform/ imports nothing of generated/.

export interface Runtime {
  readonly validate: (
    id: string,
    data: unknown,
  ) => { valid: true } | { valid: false; errors: readonly { message: string; code: string; path: readonly (string | number)[] }[] };
  /** A generated JSON Schema by id (for presence: its `required` and `x-presence-not-shown`). */
  readonly schemaOf?: (id: string) => unknown;
  /** Whether the transition table of section 3 allows a change of verification status (the proxy's GET judgement). */
  readonly canTransition?: (from: string | null, to: string, fields?: Readonly<Record<string, unknown>>) => boolean;
  readonly verifyWebhook: (input: {
    rawBody: Uint8Array;
    headers: Record<string, string | string[] | undefined>;
    secret: string;
    now: number;
    replayStore: { addIfAbsent(): boolean };
  }) => Promise<{ payload: unknown }>;
}
