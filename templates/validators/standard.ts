// Every generated validator is also a Standard Schema v1 (https://standardschema.dev): form, router and RPC
// libraries that accept any Standard Schema (Hono's standard validator, TanStack Form, tRPC, react-hook-form)
// take a verispec validator as it is, and report the service's messages and paths (section 7).
//
// The interface is the spec's own, written out here rather than imported from `@standard-schema/spec`, as the
// spec asks libraries to do: a consumer's type-check needs no extra package, and the package's dependencies do
// not grow. test/validators/standard.test.ts checks it is assignable both ways to the published one.
import type { ValidateOptions, ValidationIssue, Validator } from "./types.js";

/** The Standard Schema v1 interface (`@standard-schema/spec` 1.x, inlined). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace StandardSchemaV1 {
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: Options | undefined) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  export interface Options {
    /** verispec reads its ValidateOptions here (`unknownKeys`, `abnChecksum`, `maxErrors`). */
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/**
 * The `~standard` props of a verispec validator: its issues are the service's 422 `details` items as they
 * are (`{ message, code, path }`, a path of keys and indices), so nothing is copied on either answer.
 */
export interface VerispecStandardProps<T> extends StandardSchemaV1.Props<T, T> {
  readonly vendor: "verispec";
  readonly validate: (
    value: unknown,
    options?: StandardSchemaV1.Options | undefined,
  ) => StandardSchemaV1.SuccessResult<T> | { readonly issues: readonly ValidationIssue[] };
}

/** A generated validator: the service-shaped function, and a Standard Schema of the schema's type `T`. */
export type StandardValidator<T> = Validator & { readonly "~standard": VerispecStandardProps<T> };

/** Gives `validator` its `~standard` property (the same function object: `validator(data)` is unchanged). */
export function withStandardSchema<T>(validator: Validator): StandardValidator<T> {
  const props: VerispecStandardProps<T> = {
    version: 1,
    vendor: "verispec",
    validate: (value, options) => {
      const result = validator(value, options?.libraryOptions as ValidateOptions | undefined);
      return result.valid ? { value: value as T } : { issues: result.errors };
    },
  };
  return Object.defineProperty(validator, "~standard", { value: Object.freeze(props), enumerable: true }) as StandardValidator<T>;
}
