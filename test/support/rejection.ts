// What a promise rejects with, for tests that go on to read the error's fields.
import { expect } from "vitest";

/** The error `p` rejects with, an instance of `kind`: the test fails if `p` fulfils or rejects with anything else. */
export async function rejectionOf<E>(p: Promise<unknown>, kind: abstract new (...args: never[]) => E): Promise<E> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(kind);
  return err as E;
}
