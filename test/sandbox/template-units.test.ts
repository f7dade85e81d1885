// The PGlite template's archive, unit by unit (templates/sandbox/store/template.ts): the ustar headers tarOf
// writes (read back by the system's tar, which checks each header's checksum), what extractTemplate
// refuses and where it stops, PG_VERSION written only after every other entry, the WAL segment after a
// given one, and which template file templatePath picks. Written against the `start` group's mutation
// survivors (docs/engineering/mutation-testing.md).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../templates/sandbox/store/migrations.js";
import { extractTemplate, nextSegment, tarOf, templateName, templatePath } from "../../templates/sandbox/store/template.js";

const dir = mkdtempSync(join(tmpdir(), "verispec-template-units-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `d${++n}`);

/** One ustar header as a reader sees it: a field's text up to its first NUL. */
function field(header: Buffer, at: number, width: number): string {
  return header.toString("latin1", at, at + width).replace(/\0.*$/s, "");
}

/** A hand-made entry: a header (name, type, size field as given) and its data padded to the block. */
function entry(name: string, type: string, data = Buffer.alloc(0), size = `${data.length.toString(8).padStart(11, "0")}\0`): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, "latin1");
  h.write(size, 124, "latin1");
  h.write(type, 156, "latin1");
  return Buffer.concat([h, data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}
const end = Buffer.alloc(1024);

describe("tarOf: a ustar archive", () => {
  it("writes each header's fields as ustar says: mode, owner, size, mtime, type, magic and checksum; the system's tar reads it", () => {
    const root = fresh();
    mkdirSync(join(root, "b", "sub"), { recursive: true });
    writeFileSync(join(root, "a.txt"), "x".repeat(700));
    writeFileSync(join(root, "b", "sub", "c"), "");
    writeFileSync(join(root, "skipped"), "no");
    const tar = tarOf(root, (p) => p === "/skipped");
    // Entries sorted, each a header then its data padded to 512 bytes, two empty blocks at the end.
    expect(tar.length).toBe(512 + 1024 + 512 + 512 + 512 + 1024);
    const first = tar.subarray(0, 512);
    expect(field(first, 0, 100)).toBe("/a.txt");
    expect(field(first, 100, 8)).toBe("0000600");
    expect([field(first, 108, 8), field(first, 116, 8)]).toEqual(["0000000", "0000000"]);
    expect(field(first, 124, 12)).toBe((700).toString(8).padStart(11, "0"));
    expect(field(first, 136, 12)).toBe((1_700_000_000).toString(8).padStart(11, "0"));
    expect(first.toString("latin1", 156, 157)).toBe("0");
    expect(first.toString("latin1", 257, 265)).toBe("ustar\u000000");
    const withSpaces = Buffer.from(first);
    withSpaces.fill(32, 148, 156);
    const sum = withSpaces.reduce((s, b) => s + b, 0);
    expect(first.toString("latin1", 148, 156)).toBe(`${sum.toString(8).padStart(6, "0")}\0 `);
    expect(tar.subarray(512, 512 + 700).toString("latin1")).toBe("x".repeat(700));
    expect(tar.subarray(512 + 700, 1536).every((b) => b === 0)).toBe(true);
    const dirHeader = tar.subarray(1536, 2048);
    expect([field(dirHeader, 0, 100), field(dirHeader, 100, 8), dirHeader.toString("latin1", 156, 157), field(dirHeader, 124, 12)]).toEqual([
      "/b",
      "0000700",
      "5",
      "00000000000",
    ]);
    expect(tar.subarray(tar.length - 1024).every((b) => b === 0)).toBe(true);
    const file = join(dir, "listed.tar");
    writeFileSync(file, tar);
    const listing = execFileSync("tar", ["-tvf", file, "--numeric-owner"], {
      encoding: "utf8",
      env: { ...process.env, TZ: "UTC" },
      stdio: ["ignore", "pipe", "ignore"],
    })
      .trim()
      .split("\n");
    expect(listing.map((l) => l.split(/\s+/).at(-1))).toEqual(["/a.txt", "/b", "/b/sub", "/b/sub/c"]);
    expect(listing[0]).toMatch(/^-rw------- 0\/0\s+700 2023-11-14 22:13 \/a\.txt$/);
    expect(listing[1]).toMatch(/^drwx------ 0\/0\s+0 /);
  });
});

describe("extractTemplate", () => {
  it("writes files 0600 and folders 0700, each file's bytes past a padded neighbour, and stops at the first empty block", () => {
    const into = fresh();
    const tar = Buffer.concat([
      entry("/PG_VERSION", "0", Buffer.from("17\n")),
      entry("/base", "5"),
      entry("/base/one", "0", Buffer.from("1".repeat(513))),
      entry("/base/two", "0", Buffer.from("22")),
      end,
      entry("/after", "0", Buffer.from("no")),
    ]);
    extractTemplate(tar, into);
    expect(readFileSync(join(into, "base", "one"), "utf8")).toBe("1".repeat(513));
    expect(readFileSync(join(into, "base", "two"), "utf8")).toBe("22");
    expect(readFileSync(join(into, "PG_VERSION"), "utf8")).toBe("17\n");
    expect(statSync(join(into, "base", "one")).mode & 0o777).toBe(0o600);
    expect(statSync(join(into, "PG_VERSION")).mode & 0o777).toBe(0o600);
    expect(statSync(join(into, "base")).mode & 0o777).toBe(0o700);
    expect(existsSync(join(into, "after"))).toBe(false);
  });

  it("a name ends at its first NUL; an empty size field is an empty file", () => {
    const into = fresh();
    mkdirSync(into);
    const named = entry("/PG_VERSION", "0", Buffer.from("17\n"));
    named.write("\0trailing", 11, "latin1");
    extractTemplate(Buffer.concat([entry("/empty", "0", Buffer.alloc(0), "\0".repeat(12)), named, end]), into);
    expect(readFileSync(join(into, "empty"), "utf8")).toBe("");
    expect(readFileSync(join(into, "PG_VERSION"), "utf8")).toBe("17\n");
  });

  it("a size that is not octal digits is refused, and PG_VERSION, even archived first, is written only once every other entry was", () => {
    const into = fresh();
    const bad = entry("/base/bad", "0", Buffer.alloc(0), "zz\0");
    expect(() => extractTemplate(Buffer.concat([entry("/PG_VERSION", "0", Buffer.from("17\n")), entry("/base", "5"), bad, end]), into)).toThrow(
      'the template\'s entry "/base/bad" is not one of its files',
    );
    expect(existsSync(join(into, "base"))).toBe(true);
    expect(existsSync(join(into, "PG_VERSION"))).toBe(false);
    for (const name of ["/.", "/a/./b", "/"])
      expect(() => extractTemplate(Buffer.concat([entry(name, "0"), end]), fresh())).toThrow(
        `the template's entry ${JSON.stringify(name)} is not one of its files`,
      );
  });

  it("an archive shorter than one block, or empty, holds no PG_VERSION", () => {
    expect(() => extractTemplate(Buffer.alloc(511, 1), fresh())).toThrow("the template has no PG_VERSION");
    expect(() => extractTemplate(end, fresh())).toThrow("the template has no PG_VERSION");
  });
});

describe("nextSegment: the WAL segment after one (1 MB segments, 4096 a log)", () => {
  it("counts within a log, then carries into the next log, in upper-case hex (a log past 0 too: its number is log * 4096 + segment)", () => {
    expect(nextSegment("000000010000000000000003")).toBe("000000010000000000000004");
    expect(nextSegment("00000001000000000000000F")).toBe("000000010000000000000010");
    expect(nextSegment("000000010000000000000FFF")).toBe("000000010000000100000000");
    expect(nextSegment("0000000200000A1B00000ABC")).toBe("0000000200000A1B00000ABD");
    expect(nextSegment("00000003000000FF00000FFF")).toBe("000000030000010000000000");
  });
});

describe("templateName and templatePath", () => {
  it("names a template by its migrations' count and a hash of them", () => {
    expect(templateName()).toMatch(new RegExp(`^pglite-${MIGRATIONS.length}-[0-9a-f]{16}\\.tar$`));
    expect(templateName(MIGRATIONS.slice(0, 1))).toMatch(/^pglite-1-[0-9a-f]{16}\.tar$/);
    expect(templateName(MIGRATIONS.slice(0, 1))).not.toBe(templateName(MIGRATIONS.slice(0, 2)).replace("pglite-2-", "pglite-1-"));
  });

  it("picks the template of the most current migrations, in the first folder holding it; none: undefined", () => {
    const [a, b] = [fresh(), fresh()];
    mkdirSync(a);
    mkdirSync(b);
    expect(templatePath([a, b])).toBeUndefined();
    writeFileSync(join(b, templateName(MIGRATIONS.slice(0, 1))), "");
    expect(templatePath([a, b])).toBe(join(b, templateName(MIGRATIONS.slice(0, 1))));
    writeFileSync(join(b, templateName(MIGRATIONS.slice(0, 2))), "");
    expect(templatePath([a, b])).toBe(join(b, templateName(MIGRATIONS.slice(0, 2))));
    writeFileSync(join(a, templateName(MIGRATIONS.slice(0, 2))), "");
    expect(templatePath([a, b])).toBe(join(a, templateName(MIGRATIONS.slice(0, 2))));
    writeFileSync(join(b, templateName()), "");
    expect(templatePath([a, b])).toBe(join(b, templateName()));
    // A template of other migrations (same count, another hash) is not one of these.
    const c = fresh();
    mkdirSync(c);
    writeFileSync(join(c, `pglite-${MIGRATIONS.length}-0000000000000000.tar`), "");
    expect(templatePath([c])).toBeUndefined();
  });
});
