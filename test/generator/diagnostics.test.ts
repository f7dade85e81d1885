// A broken spec stops generation with file:line:col, what was found and what was expected.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import { CATALOG, SpecError } from "../../generator/diagnostics.js";
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
    from: '  personName:\n    source: "2.2"',
    to: '  personName:\n   source: "2.2"',
    message: "spec/rules.yaml:11:1: error VS101: found invalid YAML (All mapping items must start at the same column); expected well-formed YAML",
  },
  {
    name: "a duplicate key",
    file: "limits.yaml",
    from: '  acn:\n    source: "8"',
    to: '  acn:\n    source: "8"\n    source: "8"',
    message: "spec/limits.yaml:20:5: error VS101: found invalid YAML (Map keys must be unique); expected well-formed YAML",
  },
  {
    name: "an unknown key",
    file: "rules.yaml",
    from: '    pattern: "^[0-9]{6,13}$"',
    to: '    pattern: "^[0-9]{6,13}$"\n    maxLen: 13',
    message:
      "spec/rules.yaml:70:5: error VS202: found an unknown key `maxLen`; expected one of the keys `source`, `description`, `type`, `minLength`, `maxLength`, `pattern`, `format`, `messages`, `examples`",
  },
  {
    name: "a missing required key",
    file: "rules.yaml",
    from: '  usPostcode:\n    source: "2.2"\n',
    to: "  usPostcode:\n",
    message: "spec/rules.yaml:33:5: error VS203: found no key `source`; expected a key `source`",
  },
  {
    name: "a fallback message template missing (the validators' runtime words an unknown keyword with it)",
    file: "errors.yaml",
    from: '    custom: { code: custom, message: "Invalid input" }\n',
    to: "",
    message: "spec/errors.yaml:69:5: error VS203: found no key `custom`; expected a key `custom`",
  },
  {
    name: "a value of the wrong type",
    file: "errors.yaml",
    from: "httpStatus: 474",
    to: 'httpStatus: "474"',
    message: 'spec/errors.yaml:15:17: error VS205: found "474"; expected a value of type integer',
  },
  {
    name: "a malformed section number",
    file: "entities/partnership.yaml",
    from: 'source: "2.8"\ninterface',
    to: 'source: "two"\ninterface',
    message: 'spec/entities/partnership.yaml:3:9: error VS205: found "two"; expected a section of the service\'s specification, such as "2.7"',
  },
  {
    name: "a role naming an unknown stakeholder type",
    file: "stakeholders.yaml",
    from: "        required: true\n        types: [individual, privateCompany, publicCompany, governmentBody]",
    to: "        required: true\n        types: [individual, trustCompany, publicCompany, governmentBody]",
    message:
      'spec/stakeholders.yaml:56:29: error VS308: found the stakeholder type "trustCompany"; expected a stakeholder type of `types`: `individual`, `privateCompany`, `publicCompany`, `governmentBody`',
  },
  {
    name: "an unknown country group",
    file: "entities/trust.yaml",
    from: "countries: trustCountries",
    to: "countries: trustCountriez",
    message:
      'spec/entities/trust.yaml:10:16: error VS309: found the country group "trustCountriez"; expected "iso3" or a group of countries.yaml: `individualUSA`, `individualEurope`, `associationCountries`, `governmentBodyUSA`, `governmentBodyNZL`, `privateCompanyCountries`, `unRegulatedTrustCountries`, `trustCountries`, `partnershipCountries`, `australia`',
  },
  {
    name: "a country that is not an ISO 3166-1 alpha-3 code",
    file: "countries.yaml",
    from: "countries: [NZL]\n  australia:",
    to: "countries: [NZL, XXX]\n  australia:",
    message: 'spec/countries.yaml:293:22: error VS301: found the country "XXX"; expected an ISO 3166-1 alpha-3 code of iso3166Alpha3',
  },
  {
    name: "a duplicate shape id",
    file: "webhooks.yaml",
    from: "  v5.Screening:\n",
    to: "  v5.Document:\n    type: object\n  v5.Screening:\n",
    message:
      "spec/v5.yaml:111:3: error VS404: found a second definition of the shape v5.Document; expected one definition (the first is in spec/webhooks.yaml)",
  },
  {
    name: "a dangling shape reference",
    file: "v5.yaml",
    from: "items: { ref: v5.Document }",
    to: "items: { ref: v5.Documentt }",
    message:
      'spec/v5.yaml:49:47: error VS304: found the shape "v5.Documentt"; expected a shape defined under `shapes` in stakeholders.yaml, older.yaml, webhooks.yaml or v5.yaml',
  },
  {
    name: "an unknown rule",
    file: "entities/partnership.yaml",
    from: "nzbn: { required: true, rule: nzbn }",
    to: "nzbn: { required: true, rule: nzbnn }",
    message:
      'spec/entities/partnership.yaml:13:37: error VS303: found the rule "nzbnn"; expected a rule of rules.yaml: `personName`, `dateDDMMYYYY`, `usPostcode`, `socialSecurityNumber`, `abn`, `acn`, `nzbn`, `arbn`, `dataUri`, `v5DataUri`, `v5Name`, `v5Website`, `v5Address`, `nonEmpty`, `url`, `uuid`, `isoDateTime`',
  },
  {
    name: "an unknown message",
    file: "rules.yaml",
    from: "      pattern: abnFormat",
    to: "      pattern: abnFormatt",
    message:
      'spec/rules.yaml:54:16: error VS302: found the message "abnFormatt"; expected a message of errors.yaml (observed or verispec): `abnFormat`, `expectedStringReceivedUndefined`, `requiredDocumentUpload`, `websiteRequired`, `nameTooLong`, `requiredRole`, `roleTypeNotAllowed`, `abnChecksum`, `personNameFormat`, `dateFormat`, `usPostcodeFormat`, `socialSecurityNumberFormat`, `acnFormat`, `nzbnFormat`, `arbnFormat`, `dataUriFormat`, `v5DataUriFormat`, `oneLookupKey`, `urlFormat`, `uuidFormat`, `dateTimeFormat`',
  },
  {
    name: "a transition to an unknown status",
    file: "statuses.yaml",
    from: "to: [verified, rejected, info]",
    to: "to: [verified, rejected, approved]",
    message:
      'spec/statuses.yaml:124:30: error VS306: found the status "approved"; expected "any" or a verification status: `new`, `pending`, `verified`, `rejected`, `info`, `locked`, `error`, `removed`',
  },
  {
    name: "path parameters that do not match the path",
    file: "endpoints.yaml",
    from: '      trace: { type: string, description: "Verification trace." }',
    to: '      id: { type: string, description: "Verification trace." }',
    message:
      "spec/endpoints.yaml:100:7: error VS415: found path parameters [id] for the path /v5/verifications/{trace}; expected exactly the parameters of the path: [trace]",
  },
  {
    name: "an auth: body request without the credential fields the client adds",
    file: "older.yaml",
    from: "    additionalProperties: false\n    include: [olderCredentials]\n    properties:\n      trace:",
    to: "    additionalProperties: false\n    properties:\n      trace:",
    message:
      "spec/endpoints.yaml:62:14: error VS417: found an `auth: body` request without metadata_version; expected the credential fields metadata_version, metadata_serviceUid, metadata_secretKey (the client adds them)",
  },
  {
    name: "a transition condition naming an unknown condition",
    file: "statuses.yaml",
    from: "    when: { ref: canRetry }",
    to: "    when: { ref: canRetryy }",
    message:
      'spec/statuses.yaml:136:18: error VS318: found the condition "canRetryy"; expected a condition of `conditions` in statuses.yaml: `canRetry`, `capExhausted`, `isStakeholder`, `isEntity`, `resubmittable`',
  },
  {
    name: "a condition testing a field the webhook payload does not have",
    file: "statuses.yaml",
    from: "      - { field: attempt, below: maxAttempts }",
    to: "      - { field: attempts, below: maxAttempts }",
    message:
      'spec/statuses.yaml:85:18: error VS319: found the field "attempts"; expected a field of the current webhook payload: `version`, `userId`, `onBehalfUid`, `tags`, `trace`, `submissionId`, `name`, `country`, `type`, `subType`, `inputRisk`, `idvRisk`, `screening`, `verificationStatus`, `submissionStatus`, `attempt`, `maxAttempts`, `timestamp`, `parentTrace`, `parentUserId`, `roles`',
  },
  {
    name: "no submission status that locks resubmission",
    file: "statuses.yaml",
    from: "    locksResubmission: true\n",
    to: "",
    message:
      "spec/statuses.yaml:40:3: error VS418: found no submission status with `locksResubmission: true`; expected the submission status that locks resubmission (the service's specification, section 3)",
  },
  {
    name: "webhook payloads without the older format",
    file: "webhooks.yaml",
    from: '  older:\n    source: "6.3"',
    to: '  legacy:\n    source: "6.3"',
    message: "spec/webhooks.yaml:36:1: error VS419: found payloads `v5`, `legacy`; expected a `v5` and an `older` payload",
  },
  {
    name: "a client name nested two groups deep",
    file: "endpoints.yaml",
    from: "client: v5.getVerification",
    to: "client: v5.reads.getVerification",
    message: 'spec/endpoints.yaml:96:13: error VS205: found "v5.reads.getVerification"; expected text matching ^(v5\\.)?[a-z][A-Za-z0-9]*$',
  },
  {
    name: "a webhook tolerance naming a limit without milliseconds",
    file: "webhooks.yaml",
    from: "toleranceLimit: webhookTimestampTolerance",
    to: "toleranceLimit: acn",
    message: 'spec/webhooks.yaml:23:21: error VS414: found "acn"; expected the name of a limit of limits.yaml with `ms`',
  },
  {
    name: "a signature version without a version header",
    file: "webhooks.yaml",
    from: '      X-Svc-Signature-version: { value: "1" }',
    to: '      X-Svc-Signature-version: { description: "the version" }',
    message:
      "spec/webhooks.yaml:28:7: error VS439: found 0 headers with a `value` in signature version 1; expected one header with a `value` (the version header, the service's specification, section 6.4), of the same name in every signature version",
  },
  {
    name: "a signature scheme renamed: the webhook runtime reads the schemes by their keys 2 and 1",
    file: "webhooks.yaml",
    from: '  "1":\n    source: "6.4"',
    to: '  "one":\n    source: "6.4"',
    message: "spec/webhooks.yaml:12:3: error VS203: found no key `1`; expected a key `1`",
  },
  {
    name: "a payload signed with a scheme the runtime does not compute",
    file: "webhooks.yaml",
    from: '    schema: v5.WebhookPayload\n    signatureVersion: "2"',
    to: '    schema: v5.WebhookPayload\n    signatureVersion: "3"',
    message: 'spec/webhooks.yaml:40:23: error VS316: found "3"; expected a signature version of `signatures` that the webhook runtime signs with: `1`, `2`',
  },
  {
    name: "signature version 2 without its HMAC header",
    file: "webhooks.yaml",
    from: 'X-Svc-Signature: { prefix: "sha256=", digest: hmac-sha256, ',
    to: 'X-Svc-Signature: { prefix: "sha256=", ',
    message:
      "spec/webhooks.yaml:16:7: error VS441: found 0 headers with `digest: hmac-sha256` in signature version 2; expected in signature version 2 one header with `digest: hmac-sha256`, in version 1 one with `digest: sha3-256` and one with `digest: keccak-256`, each with the `prefix` before the hex digest (the service's specification, section 6.4)",
  },
  {
    name: "a digest header without its prefix",
    file: "webhooks.yaml",
    from: 'X-Svc-Signature-KECCAK: { prefix: "svc_sec_keccak256_", ',
    to: "X-Svc-Signature-KECCAK: { ",
    message:
      "spec/webhooks.yaml:29:31: error VS441: found the keccak-256 header X-Svc-Signature-KECCAK without a `prefix`; expected in signature version 2 one header with `digest: hmac-sha256`, in version 1 one with `digest: sha3-256` and one with `digest: keccak-256`, each with the `prefix` before the hex digest (the service's specification, section 6.4)",
  },
  {
    name: "one error role on two error types",
    file: "errors.yaml",
    from: "    role: attemptsExhausted",
    to: "    role: validation",
    message:
      "spec/errors.yaml:14:11: error VS442: found the role validation on too_many_attempts as well as on validation_error; expected each role on one error type: the runtime looks an error up by its role",
  },
  {
    name: "the condition isEntity in a form the sandbox does not read",
    file: "statuses.yaml",
    from: "    notEquals: individual",
    to: "    equals: individual",
    message:
      "spec/statuses.yaml:97:5: error VS443: found the condition isEntity in another form; expected `field: type` with `notEquals` the individual's type: the sandbox tells an individual from an entity by it",
  },
  {
    name: "the condition resubmittable with a third test",
    file: "statuses.yaml",
    from: "      - { field: type, equals: individual }\n",
    to: "      - { field: type, equals: individual }\n      - { field: country, equals: AUS }\n",
    message:
      "spec/statuses.yaml:102:5: error VS443: found the condition resubmittable in another form; expected `all` of two `equals` tests, on `type` and on `subType`: the sandbox selects what a create resubmits by these two values",
  },
  {
    name: "a discriminated variant without its const",
    file: "webhooks.yaml",
    from: "type: { required: true, type: string, const: document }",
    to: "type: { required: true, type: string }",
    message:
      "spec/webhooks.yaml:224:9: error VS444: found the variant v4.RequestedDocument without a required `type` with a `const`; expected every variant of a `oneOf` with `discriminator: type` naming itself in `type` (`required: true` and a `const`): the validators select the variant by it\nspec/webhooks.yaml:248:7: error VS433: found no value `v4.RequestedDocument.properties.type.const`; expected value `v4.RequestedDocument.properties.type.const`: the sandbox names a requested document with it",
  },
  {
    name: "a limit the sandbox copies, missing",
    file: "limits.yaml",
    from: "    days: 31\n",
    to: "",
    message:
      "spec/limits.yaml:33:3: error VS433: found no value `limits.formLifetime.days`; expected value `limits.formLifetime.days`: the sandbox expires a hosted form after it",
  },
  {
    name: "signature versions naming themselves in different headers",
    file: "webhooks.yaml",
    from: '      X-Svc-Signature-version: { value: "1" }',
    to: '      X-Svc-Version: { value: "1" }',
    message:
      "spec/webhooks.yaml:17:32: error VS439: found the version header X-Svc-Signature-version where another version uses X-Svc-Version; expected one header with a `value` (the version header, the service's specification, section 6.4), of the same name in every signature version",
  },
  {
    name: "an endpoint showing two success statuses",
    file: "endpoints.yaml",
    from: '      "200": v5.VerificationGetResponse',
    to: '      "200": v5.VerificationGetResponse\n      "201": v5.VerificationGetResponse',
    message:
      "spec/endpoints.yaml:103:14: error VS440: found 2 success statuses (200, 201); expected at most one 2xx response: the sandbox and the mock handlers answer one",
  },
  {
    name: "a rule the generator relies on, missing",
    file: "errors.yaml",
    from: "    abnChecksum:",
    to: "    abnChecksumm:",
    message: "spec/errors.yaml:94:3: error VS422: found no `abnChecksum` here; expected `abnChecksum`: the message of the strict ABN mode",
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
    // The code and the position are data too, not only text.
    const [, path, line, col, code] = /^([^:]+):(\d+):(\d+): error (VS\d{3}):/.exec(message)!;
    const d = (error as SpecError).diagnostics[0]!;
    expect({ code: d.code, file: d.pos.file, line: d.pos.line, col: d.pos.col }).toEqual({ code, file: path, line: Number(line), col: Number(col) });
    expect(CATALOG[d.code]).toBeDefined();
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
    expect(stderr.join("")).toMatch(/^spec\/entities\/trust\.yaml:10:16: error VS309: found the country group "trustCountriez"/);
    expect(stderr.join("")).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(scratch.dir).filter((e) => e.startsWith(".generated"))).toEqual([]);
  });
});

describe("the diagnostics catalog", () => {
  it("the authoring guide lists every code with its name", async () => {
    const readme = (await import("../support/docs.js")).allDocs();
    for (const [code, entry] of Object.entries(CATALOG)) expect(readme, code).toContain(`| ${code} | ${entry.name} |`);
  });
});
