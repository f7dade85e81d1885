// A broken spec stops generation with file:line:col, what was found and what was expected.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import { SpecError } from "../../generator/diagnostics.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { scratchSpec, type ScratchSpec } from "./helpers.js";

interface Case {
  readonly name: string;
  readonly file: string;
  readonly from: string;
  readonly to: string;
  readonly message: string;
}

const cases: Case[] = [
  {
    name: "YAML that does not parse",
    file: "rules.yaml",
    from: '  personName:\n    seed: "2.2"',
    to: '  personName:\n   seed: "2.2"',
    message: "spec/rules.yaml:11:1: found invalid YAML (All mapping items must start at the same column); expected well-formed YAML",
  },
  {
    name: "a duplicate key",
    file: "limits.yaml",
    from: '  acn:\n    seed: "8"',
    to: '  acn:\n    seed: "8"\n    seed: "8"',
    message: "spec/limits.yaml:20:5: found invalid YAML (Map keys must be unique); expected well-formed YAML",
  },
  {
    name: "an unknown key",
    file: "rules.yaml",
    from: '    pattern: "^[0-9]{6,13}$"',
    to: '    pattern: "^[0-9]{6,13}$"\n    maxLen: 13',
    message: "spec/rules.yaml:66:5: found an unknown key `maxLen`; expected one of the keys `seed`, `description`, `type`, `minLength`, `maxLength`, `pattern`, `messages`, `examples`",
  },
  {
    name: "a missing required key",
    file: "rules.yaml",
    from: '  usPostcode:\n    seed: "2.2"\n',
    to: "  usPostcode:\n",
    message: "spec/rules.yaml:32:5: found no key `seed`; expected a key `seed`",
  },
  {
    name: "a value of the wrong type",
    file: "errors.yaml",
    from: "httpStatus: 474",
    to: 'httpStatus: "474"',
    message: 'spec/errors.yaml:10:17: found "474"; expected a value of type integer',
  },
  {
    name: "a malformed seed section",
    file: "entities/partnership.yaml",
    from: 'seed: "2.8"\ninterface',
    to: 'seed: "two"\ninterface',
    message: 'spec/entities/partnership.yaml:3:7: found "two"; expected a seed section such as "2.7"',
  },
  {
    name: "a role naming an unknown stakeholder type",
    file: "stakeholders.yaml",
    from: "        required: true\n        types: [individual, privateCompany, publicCompany, governmentBody]",
    to: "        required: true\n        types: [individual, trustCompany, publicCompany, governmentBody]",
    message: 'spec/stakeholders.yaml:56:29: found the stakeholder type "trustCompany"; expected a stakeholder type of `types`: `individual`, `privateCompany`, `publicCompany`, `governmentBody`',
  },
  {
    name: "an unknown country group",
    file: "entities/trust.yaml",
    from: "countries: trustCountries",
    to: "countries: trustCountriez",
    message: 'spec/entities/trust.yaml:10:16: found the country group "trustCountriez"; expected "iso3" or a group of countries.yaml: `individualUSA`, `individualEurope`, `associationCountries`, `governmentBodyUSA`, `governmentBodyNZL`, `privateCompanyCountries`, `unRegulatedTrustCountries`, `trustCountries`, `partnershipCountries`, `australia`',
  },
  {
    name: "a country that is not an ISO 3166-1 alpha-3 code",
    file: "countries.yaml",
    from: "countries: [NZL]\n  australia:",
    to: "countries: [NZL, XXX]\n  australia:",
    message: 'spec/countries.yaml:293:22: found the country "XXX"; expected an ISO 3166-1 alpha-3 code of iso3166Alpha3',
  },
  {
    name: "a duplicate shape id",
    file: "webhooks.yaml",
    from: "  v5.Screening:\n",
    to: "  v5.Document:\n    type: object\n  v5.Screening:\n",
    message: "spec/v5.yaml:110:3: found a second definition of the shape v5.Document; expected one definition (the first is in spec/webhooks.yaml)",
  },
  {
    name: "a dangling shape reference",
    file: "v5.yaml",
    from: "items: { ref: v5.Document }",
    to: "items: { ref: v5.Documentt }",
    message: 'spec/v5.yaml:48:47: found the shape "v5.Documentt"; expected a shape defined under `shapes` in stakeholders.yaml, older.yaml, webhooks.yaml or v5.yaml',
  },
  {
    name: "an unknown rule",
    file: "entities/partnership.yaml",
    from: "nzbn: { required: true, rule: nzbn }",
    to: "nzbn: { required: true, rule: nzbnn }",
    message: 'spec/entities/partnership.yaml:13:37: found the rule "nzbnn"; expected a rule of rules.yaml: `personName`, `dateDDMMYYYY`, `usPostcode`, `socialSecurityNumber`, `abn`, `acn`, `nzbn`, `arbn`, `dataUri`, `v5DataUri`, `v5Name`, `v5Website`, `v5Address`, `nonEmpty`',
  },
  {
    name: "an unknown message",
    file: "rules.yaml",
    from: "      pattern: abnFormat",
    to: "      pattern: abnFormatt",
    message: 'spec/rules.yaml:51:16: found the message "abnFormatt"; expected a message of errors.yaml (observed or verispec): `abnFormat`, `expectedStringReceivedUndefined`, `requiredDocumentUpload`, `websiteRequired`, `nameTooLong`, `requiredRole`, `roleTypeNotAllowed`, `abnChecksum`, `personNameFormat`, `oneLookupKey`',
  },
  {
    name: "a transition to an unknown status",
    file: "statuses.yaml",
    from: "to: [verified, rejected, info]",
    to: "to: [verified, rejected, approved]",
    message: 'spec/statuses.yaml:84:30: found the status "approved"; expected "any" or a verification status: `new`, `pending`, `verified`, `rejected`, `info`, `locked`, `error`, `removed`',
  },
  {
    name: "path parameters that do not match the path",
    file: "endpoints.yaml",
    from: '      trace: { type: string, description: "Verification trace." }',
    to: '      id: { type: string, description: "Verification trace." }',
    message: "spec/endpoints.yaml:96:7: found path parameters [id] for the path /v5/verifications/{trace}; expected exactly the parameters of the path: [trace]",
  },
];

let scratch: ScratchSpec | undefined;
afterEach(() => {
  scratch?.remove();
  scratch = undefined;
});

describe("broken spec files", () => {
  it.each(cases)("$name", ({ file, from, to, message }) => {
    scratch = scratchSpec();
    scratch.edit(file, from, to);
    let error: unknown;
    try {
      modelFromSpec(scratch.spec);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SpecError);
    expect((error as SpecError).message).toBe(message);
  });

  it("the unchanged spec has no diagnostics", () => {
    scratch = scratchSpec();
    expect(() => modelFromSpec(scratch!.spec)).not.toThrow();
  });

  it("generate exits 2, prints the diagnostic without a stack, and writes nothing", async () => {
    scratch = scratchSpec();
    scratch.edit("entities/trust.yaml", "countries: trustCountries", "countries: trustCountriez");
    const out = join(scratch.dir, "generated");
    const stderr: string[] = [];
    const code = await main(["generate", "--spec", scratch.spec, "--out", out], {
      stdout: () => {},
      stderr: (t) => stderr.push(t),
      env: {},
      cwd: scratch.dir,
      stdin: async () => "",
    });
    expect(code).toBe(2);
    expect(stderr.join("")).toMatch(/^spec\/entities\/trust\.yaml:10:16: found the country group "trustCountriez"/);
    expect(stderr.join("")).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(scratch.dir).filter((e) => e.startsWith(".generated"))).toEqual([]);
  });
});
