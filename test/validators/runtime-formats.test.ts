// The formats of the generated validators (templates/validators/formats.ts), unit by unit: `uri` and
// `uuid` against ajv-formats' own full formats (formats.ts copies their definitions so that no Ajv is
// needed at run time), `date-time` against RFC 3339 section 5.6 case by case.
import { fullFormats as ajvFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { propertyRuns } from "../support/runs.js";
import { URIS, UUIDS } from "./format-corpus.js";
import { fresh } from "./fresh.js";

const formats = async () => (await fresh(() => import("../../templates/validators/formats.js"))).fullFormats;

const ajvUri = ajvFormats.uri as (s: string) => boolean;
const ajvUuid = ajvFormats.uuid as RegExp;

describe("uri: the same answers as ajv-formats' full `uri`", () => {
  for (const [group, inputs] of Object.entries(URIS)) {
    it(`${group}: ${inputs.length} inputs`, async () => {
      const fullFormats = await formats();
      const ours = inputs.map((s) => [s, fullFormats.uri(s)]);
      expect(ours).toEqual(inputs.map((s) => [s, ajvUri(s)]));
    });
  }

  it("the corpus is not one-sided: each group has accepted and rejected inputs", async () => {
    const fullFormats = await formats();
    // A differential test of a check that answers the same everywhere would pass for the wrong reason.
    for (const [group, inputs] of Object.entries(URIS)) expect([group, new Set(inputs.map(fullFormats.uri)).size]).toEqual([group, 2]);
  });

  it("random http(s)-shaped strings: the same answers (the plain-URL fast path never accepts what the full check refuses)", async () => {
    const fullFormats = await formats();
    // Pieces that a plain URL is made of, and the ones that take it off the fast path or make it invalid.
    const piece = fc.constantFrom(
      "a",
      "Z",
      "0",
      "9",
      ".",
      "-",
      "_",
      "~",
      "/",
      "?",
      ":",
      "@",
      "#",
      "%",
      "%2F",
      "%zz",
      "[",
      "]",
      "::1",
      " ",
      "\n",
      "é",
      "!",
      "$",
      "&",
      "'",
      "(",
      "*",
      "+",
      ",",
      ";",
      "=",
      "\\",
      "^",
    );
    const scheme = fc.constantFrom("http://", "https://", "HTTPS://", "ftp://", "http:/", "http:", "", "1http://");
    const input = fc.tuple(scheme, fc.array(piece, { maxLength: 24 })).map(([head, rest]) => head + rest.join(""));
    let accepted = 0;
    fc.assert(
      fc.property(input, (s) => {
        const ours = fullFormats.uri(s);
        if (ours) accepted++;
        return ours === ajvUri(s);
      }),
      { numRuns: propertyRuns(20_000), seed: 20261123 },
    );
    // The generator reaches both answers (a property over inputs all refused would pass for nothing).
    expect(accepted).toBeGreaterThan(propertyRuns(20_000) / 50);
  });

  it("pins a few answers (the oracle could change with ajv-formats)", async () => {
    const fullFormats = await formats();
    const cases: [string, boolean][] = [
      ["https://example.com/a?b=c#d", true],
      ["http://user:pass@[2001:db8::7]:8080/x", true],
      ["http://[v1.abc]/", true],
      ["urn:isbn:0451450523", true],
      ["http://[1:2:3:4:5:6:7:8:9]/", false],
      ["http://host/%zz", false],
      ["example.com/path", false],
      ["#fragment", false],
    ];
    expect(cases.map(([s]) => [s, fullFormats.uri(s)])).toEqual(cases);
  });
});

describe("uuid: the same answers as ajv-formats' full `uuid`", () => {
  it(`${UUIDS.length} inputs`, async () => {
    const fullFormats = await formats();
    expect(UUIDS.map((s) => [s, fullFormats.uuid.test(s)])).toEqual(UUIDS.map((s) => [s, ajvUuid.test(s)]));
  });
  it("pins the accepted forms: plain, upper case, urn:uuid: prefix", async () => {
    const fullFormats = await formats();
    expect(UUIDS.filter((s) => fullFormats.uuid.test(s))).toEqual([
      "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
      "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6",
      "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
      "URN:UUID:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    ]);
  });
});

describe("date-time (RFC 3339 section 5.6)", () => {
  const check = async (cases: readonly [string, boolean][]) => {
    const dateTime = (await formats())["date-time"];
    expect(cases.map(([s]) => [s, dateTime(s)])).toEqual(cases);
  };

  it("accepts Z, z, lower-case t and numeric offsets, with or without fractional seconds", async () => {
    await check([
      ["2024-05-17T10:20:30Z", true],
      ["2024-05-17t10:20:30z", true],
      ["2024-05-17T10:20:30+05:30", true],
      ["2024-05-17T10:20:30-00:00", true],
      ["2024-05-17T10:20:30.5Z", true],
      ["2024-05-17T10:20:30.123456789+01:00", true],
    ]);
  });

  it("rejects what the grammar does not allow", async () => {
    await check([
      ["", false],
      ["garbage", false],
      ["x2024-05-17T10:20:30Z", false],
      ["2024-05-17T10:20:30Zx", false],
      ["2024-05-17 10:20:30Z", false],
      ["2024-05-17X10:20:30Z", false],
      ["2024-05-17T10:20:30", false],
      ["2024-05-17T10:20:30.Z", false],
      ["2024-05-17T10:20:30.aZ", false],
      ["2024-05-17T10:20:30A", false],
      ["2024-05-17T10:20:30*05:30", false],
      ["2024-05-17T10:20:30+0530", false],
      ["2024-05-17T10:20:30+5:30", false],
      ["2024-05-17T10:20:30+05:3", false],
      ["24-05-17T10:20:30Z", false],
      ["2024-5-17T10:20:30Z", false],
      ["2024-05-7T10:20:30Z", false],
      ["2024-05-17T1:20:30Z", false],
      ["2024-05-17T10:2:30Z", false],
      ["2024-05-17T10:20:3Z", false],
      ["abcd-05-17T10:20:30Z", false],
      ["2024-ab-17T10:20:30Z", false],
      ["2024-05-abT10:20:30Z", false],
      ["2024-05-17Tab:20:30Z", false],
      ["2024-05-17T10:ab:30Z", false],
      ["2024-05-17T10:20:abZ", false],
      ["2024-05-17T10:20:30+ab:30", false],
      ["2024-05-17T10:20:30+05:ab", false],
    ]);
  });

  it("leap years: 2000 and 2004 have 29 February, 1900 and 2001 do not", async () => {
    await check([
      ["2000-02-29T00:00:00Z", true],
      ["2004-02-29T00:00:00Z", true],
      ["1900-02-29T00:00:00Z", false],
      ["2001-02-29T00:00:00Z", false],
      ["2001-02-28T00:00:00Z", true],
      ["2004-02-30T00:00:00Z", false],
    ]);
  });

  it("days per month: day 0 and day 32 never, 31 only in the long months, months 01-12 only", async () => {
    await check([
      ["2021-01-01T00:00:00Z", true],
      ["2021-01-00T00:00:00Z", false],
      ["2021-01-31T00:00:00Z", true],
      ["2021-01-32T00:00:00Z", false],
      ["2004-01-31T00:00:00Z", true],
      ["2004-03-31T00:00:00Z", true],
      ["2021-04-30T00:00:00Z", true],
      ["2021-04-31T00:00:00Z", false],
      ["2021-06-31T00:00:00Z", false],
      ["2021-07-31T00:00:00Z", true],
      ["2021-08-31T00:00:00Z", true],
      ["2021-09-31T00:00:00Z", false],
      ["2021-11-31T00:00:00Z", false],
      ["2021-12-31T00:00:00Z", true],
      ["2021-00-10T00:00:00Z", false],
      ["2021-13-10T00:00:00Z", false],
    ]);
  });

  it("hour 00-23, minute 00-59, second 00-60 (a leap second) and not 61", async () => {
    await check([
      ["2021-01-01T23:59:59Z", true],
      ["2021-01-01T24:00:00Z", false],
      ["2021-01-01T00:60:00Z", false],
      ["2021-01-01T23:59:60Z", true],
      ["2021-01-01T00:00:61Z", false],
    ]);
  });

  it("offsets within a day: +23:59 and -23:59, not +24:00 nor +00:60", async () => {
    await check([
      ["2021-01-01T00:00:00+23:59", true],
      ["2021-01-01T00:00:00-23:59", true],
      ["2021-01-01T00:00:00+24:00", false],
      ["2021-01-01T00:00:00+00:60", false],
    ]);
  });
});
