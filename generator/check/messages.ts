// Check: validation messages (errors.yaml) use a declared code, and every reference to a message names
// one of the observed or verispec messages.
import { nameList } from "../diagnostics.js";
import { at, rawAt, type At } from "../load/spec-access.js";
import type { Checks } from "./context.js";

/** The messages a rule or field may name: the observed ones and verispec's. */
export function messageIds(c: Checks): string[] {
  const vm = rawAt(c.root("errors.yaml")).validationMessages;
  return [...Object.keys(vm.observed), ...Object.keys(vm.verispec)];
}

/** A `messages:` table (keyword -> message id) at `a`. */
export function checkMessageTable(c: Checks, a: At, table: Record<string, string> | undefined): void {
  const ids = messageIds(c);
  for (const [keyword, id] of Object.entries(table ?? {})) {
    if (!ids.includes(id)) c.report("VS302", at(a, keyword), { value: JSON.stringify(id), choices: nameList(ids) });
  }
}

export function checkMessages(c: Checks): void {
  const root = c.root("errors.yaml");
  const vm = rawAt(root).validationMessages;
  const codes: string[] = vm.codes;
  for (const table of ["observed", "defaults", "verispec"] as const) {
    for (const [id, m] of Object.entries(vm[table] as Record<string, { code: string }>)) {
      if (!codes.includes(m.code))
        c.report("VS314", at(root, "validationMessages", table, id, "code"), { value: JSON.stringify(m.code), choices: nameList(codes) });
    }
  }
  const v5 = c.root("v5.yaml");
  const required = rawAt(v5).requiredDocumentMessage;
  if (!messageIds(c).includes(required))
    c.report("VS302", at(v5, "requiredDocumentMessage"), { value: JSON.stringify(required), choices: nameList(messageIds(c)) });
}
