// Readable messages (issue 13): no error message quotes a pattern. Every pattern rule of spec/rules.yaml
// has its own sentence, the generated error table uses it at every pattern, and no fixture's errors
// contain Zod's "must match pattern" default.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { modelFromSpec } from "../../generator/pipeline.js";
import { TABLE } from "../../generated/validators/errors.js";
import { validate, type SchemaId } from "../../generated/validators/index.js";
import { ROOT, SPEC } from "../generator/helpers.js";

const model = modelFromSpec(SPEC);
const patternRules = Object.values(model.rules).filter((r) => r.pattern !== undefined);

/** A one-line sentence a person reads: starts with a capital, words, under 120 characters, no regex. */
function readable(message: string, pattern: string): string[] {
  const faults: string[] = [];
  if (message.length >= 120) faults.push(`${message.length} characters`);
  // Two words at least: Zod's own format messages ("Invalid URL") are the service's text and stay.
  if (!/^[A-Z]\S* \S/.test(message)) faults.push("not a sentence");
  if (/\n/.test(message)) faults.push("more than one line");
  if (message.includes(pattern) || /\^|\$\/|\[[^\]]*-[^\]]*\]|\{\d|\(\?:|\\[dpu]/.test(message)) faults.push("quotes a pattern");
  return faults;
}

describe("pattern messages", () => {
  it("every pattern rule has its own readable sentence", () => {
    expect(patternRules.length).toBeGreaterThanOrEqual(10);
    const faults = patternRules.flatMap((r) => {
      const m = r.messages.pattern;
      if (!m) return [`${r.name}: no message for its pattern (Zod's default would quote it)`];
      return readable(m.message, r.pattern!).map((f) => `${r.name}: ${f}: ${m.message}`);
    });
    expect(faults).toEqual([]);
  });

  it("the sentence check has teeth: Zod's default for the date rule fails it", () => {
    const date = model.rules.dateDDMMYYYY!;
    const zodDefault = model.messages.defaults.pattern!.message.replace("{pattern}", `/${date.pattern}/u`);
    expect(readable(zodDefault, date.pattern!)).toContain("quotes a pattern");
  });

  it("the error table overrides the message at every pattern of the compiled schemas", () => {
    const sites = Object.entries(TABLE).filter(([path]) => path.endsWith("/pattern"));
    expect(sites.map(([path]) => path.replace(/^#\/\$defs\/rules\.|\/pattern$/g, "")).sort()).toEqual(patternRules.map((r) => r.name).sort());
    for (const [path, entry] of sites) expect(entry.override?.message, path).toBeTruthy();
  });

  it("a date that is not a real calendar date says so", () => {
    const body = (dateOfBirth: string) => ({
      type: "individual",
      fields: {
        country: "USA",
        firstName: "Jane",
        lastName: "Citizen",
        dateOfBirth,
        streetNumber: "1",
        streetName: "Main",
        suburb: "Springfield",
        postcode: "62704",
        state: "IL",
      },
    });
    for (const d of ["31/02/2020", "29/02/2023", "1985-07-15"]) {
      expect(validate("v4.entities.Individual", body(d)), d).toEqual({
        valid: false,
        errors: [{ code: "invalid_format", message: "Invalid date: expected a real calendar date as DD/MM/YYYY", path: ["fields", "dateOfBirth"] }],
      });
    }
    expect(validate("v4.entities.Individual", body("29/02/2024"))).toEqual({ valid: true });
  });

  // Enum messages keep Zod 4's own list of options (the 50 state codes run long): that is the service's text.
  it("no payload fixture's errors quote a pattern, and no format message runs past 120 characters", () => {
    const dir = join(ROOT, "test", "fixtures", "payloads");
    let messages = 0;
    for (const f of readdirSync(dir).filter((x) => x.endsWith(".json"))) {
      const fixture = JSON.parse(readFileSync(join(dir, f), "utf8")) as { schema: SchemaId; data: unknown };
      const r = validate(fixture.schema, fixture.data);
      for (const e of r.valid ? [] : r.errors) {
        messages++;
        expect(e.message, f).not.toMatch(/must match pattern/);
        if (e.code === "invalid_format") expect(e.message.length, `${f}: ${e.message}`).toBeLessThan(120);
      }
    }
    expect(messages).toBeGreaterThan(30);
  });
});
