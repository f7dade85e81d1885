// A `oneOf` of two shapes chosen by `if/then/else` (v5.Stakeholder) is compiled as "the chosen shape and
// not the other", and where the `if` failing already rules the other shape out, without the `not`: the
// shape is decided once. These pin that the shortcut fires on the spec as written, and stays exact.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as raw from "../../generated/validators/ajv.js";
import { compiledDocument } from "../../generator/emit/validators/index.js";
import { ifFailureFails, type Defs } from "../../generator/emit/validators/prepare.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import type { RawValidate } from "../../templates/validators/types.js";
import { ROOT } from "./helpers.js";

const hasRole = (role: unknown) => ({ type: "object", properties: { role }, required: ["role"] });
const defs: Defs = { withEntity: { type: "object", properties: { role: { type: "string" }, entity: { type: "object" } }, required: ["role", "entity"] } };
const withEntity = { $ref: "#/$defs/withEntity" };

describe("ifFailureFails (given the condition and the branch, want whether failing the one fails the other)", () => {
  it.each([
    ["a property schema of `true`", hasRole(true), true],
    ["an empty property schema (`{}`, as the spec writes it)", hasRole({}), true],
    ["a property schema of annotations only", hasRole({ description: "the role" }), true],
    ["a property schema that checks something", hasRole({ type: "string" }), false],
  ])("%s", (_name, condition, want) => {
    expect(ifFailureFails(condition, withEntity, defs)).toBe(want);
  });

  it("a condition without required keys, or a branch not requiring them, proves nothing", () => {
    expect(ifFailureFails({ type: "object", properties: { role: {} } }, withEntity, defs)).toBe(false);
    expect(ifFailureFails(hasRole({}), { type: "object", required: ["entity"] }, defs)).toBe(false);
    expect(ifFailureFails({ ...hasRole({}), minProperties: 1 }, withEntity, defs)).toBe(false);
  });
});

describe("v5.Stakeholder, compiled", () => {
  const doc = compiledDocument(modelFromSpec(join(ROOT, "spec")));
  const stakeholder = doc.annotated["v5.Stakeholder"]!;

  it("decides the shape once: no `not` on the else branch, the `not` kept on the then branch", () => {
    expect(stakeholder.else).toEqual({ $ref: "#/$defs/v5.StakeholderWithRoles" });
    expect(stakeholder.then).toEqual({ allOf: [{ $ref: "#/$defs/v5.StakeholderWithEntity" }, { not: { $ref: "#/$defs/v5.StakeholderWithRoles" } }] });
    expect(stakeholder.oneOf).toBeUndefined();
  });

  it("still accepts exactly one shape", () => {
    const validate = (raw as unknown as Record<string, RawValidate>).rawV5Stakeholder!;
    const roles = { name: "Jane Citizen", roles: ["trustee"] };
    const entity = { role: "director", entity: { name: "Example Pty Ltd" } };
    expect(validate.call({}, roles)).toBe(true);
    expect(validate.call({}, entity)).toBe(true);
    expect(validate.call({}, { ...roles, ...entity })).toBe(false); // both shapes: oneOf fails
    expect(validate.call({}, { name: "Jane Citizen" })).toBe(false); // neither
    expect(validate.call({}, { roles: ["trustee"], entity: { name: "x" } })).toBe(true); // no `role`: the roles shape, extra keys allowed
  });
});
