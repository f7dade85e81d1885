// Model: errors.yaml: the validation messages (observed, verispec's own, Zod's defaults), their codes, and
// the error types of section 7.
import type { Raw } from "../load/spec-access.js";
import type { ModelContext } from "./context.js";
import type { ErrorType, Message, Model } from "./types.js";

/** The messages as the model holds them, and the lookup the other builders resolve message ids with. */
export interface MessageBook {
  readonly model: Model["messages"];
  /** A message by its id (observed or verispec's). */
  readonly named: Readonly<Record<string, Message>>;
  /** A keyword -> message-id table as keyword -> message. */
  resolve(table: Record<string, string> | undefined): Record<string, Message>;
}

const messageTable = (origin: Message["origin"], table: Record<string, Raw>): Record<string, Message> =>
  Object.fromEntries(Object.entries(table).map(([id, m]) => [id, { id, code: m.code, message: m.message, origin }]));

export function buildMessages(ctx: ModelContext): MessageBook {
  const vm = ctx.root("errors.yaml").validationMessages as Raw;
  const observed = messageTable("observed", vm.observed);
  const verispec = messageTable("verispec", vm.verispec);
  const named: Record<string, Message> = { ...observed, ...verispec };
  return {
    model: {
      codes: [...new Set<string>(vm.codes)],
      observed: Object.entries(vm.observed as Record<string, Raw>).map(([id, m]) => ({ ...observed[id]!, source: m.source, paths: m.paths ?? [] })),
      defaults: messageTable("default", vm.defaults),
      verispec,
    },
    named,
    resolve: (table) => Object.fromEntries(Object.entries(table ?? {}).map(([keyword, id]) => [keyword, named[id]!])),
  };
}

export function buildErrorTypes(ctx: ModelContext): ErrorType[] {
  const errors = ctx.root("errors.yaml");
  return Object.entries(errors.errorTypes as Record<string, Raw>).map(([type, e]) => ({
    type,
    source: e.source,
    ...(e.role ? { role: e.role as string } : {}),
    httpStatus: e.httpStatus,
    message: e.message,
    condition: e.condition,
  }));
}

/** The error type answered for `role` (errors.yaml `role`; check VS433 makes sure the roles the tools read exist). */
export function errorTypeOfRole(model: Pick<Model, "errorTypes">, role: string): ErrorType {
  const found = model.errorTypes.find((e) => e.role === role);
  if (found === undefined) throw new Error(`errors.yaml: no error type has the role ${role}`);
  return found;
}
