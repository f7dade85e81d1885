// A value a test reads without a declared type: a parsed JSON body or a caught error, whose shape is the
// very thing the test asserts (a wrong key fails the assertion, not the compiler). The one home of the
// `any` the tests use; code outside test/ has none.
// biome-ignore lint/suspicious/noExplicitAny: a value whose shape the test itself asserts (see above)
export type Loose = any;

/** A JSON object as a test reads it. */
export type LooseJson = Record<string, Loose>;
