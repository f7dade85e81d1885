// generated/statuses.svg (issue 13): the status life cycle drawn from spec/statuses.yaml, deterministic,
// nothing loaded from elsewhere, every status and every transition present. Its rendering is checked in
// Chromium by test/outputs/docs.test.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { statusDiagramSvg } from "../../generator/emit/diagram.js";
import { modelFromSpec } from "../../generator/pipeline.js";
import { ROOT, SPEC } from "./helpers.js";

const model = modelFromSpec(SPEC);
const svg = statusDiagramSvg(model);

/** Tag balance of the SVG's XML (no XML parser is needed for this flat, generated text). */
function unbalanced(xml: string): string[] {
  const stack: string[] = [];
  const faults: string[] = [];
  for (const m of xml.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = m;
    if (selfClosing) continue;
    if (!closing) stack.push(name!);
    else if (stack.pop() !== name) faults.push(`</${name}>`);
  }
  return [...faults, ...stack];
}

describe("status diagram", () => {
  it("is the committed generated/statuses.svg, and the same on every run", () => {
    expect(readFileSync(join(ROOT, "generated", "statuses.svg"), "utf8")).toBe(svg);
    expect(statusDiagramSvg(modelFromSpec(SPEC))).toBe(svg);
  });

  it("is well-formed SVG that loads nothing from elsewhere", () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(unbalanced(svg)).toEqual([]);
    expect(svg).not.toMatch(/href=|url\((?!#)|@import|<script/);
    expect(svg).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/);
  });

  it("shows every verification status, every transition with its number, trigger and condition, and the 474 loop", () => {
    for (const s of model.verificationStatuses) expect(svg, s.value).toMatch(new RegExp(`>${s.value}</text>`));
    model.transitions.forEach((t, i) => {
      expect(svg, `badge ${i + 1}`).toContain(`class="badge-text">${i + 1}</text>`);
      const legend = [...svg.matchAll(/class="legend">([^<]*)</g)]
        .map((m) => m[1])
        .join(" ")
        .replace(/\s+/g, " ");
      expect(legend, t.trigger).toContain(t.trigger.replace(/`/g, ""));
      if (t.condition) expect(legend, t.condition).toContain(t.condition.replace(/`/g, ""));
    });
    expect(svg).toContain("too_many_attempts (HTTP 474)");
    expect(svg).toContain("submissionStatus locked");
  });

  it("is shown inline in the OpenAPI description (the reference page) as the same picture without its legend, the numbered transitions above it being the legend", () => {
    const doc = JSON.parse(readFileSync(join(ROOT, "generated", "openapi.json"), "utf8")) as { info: { description: string } };
    const m = /<img alt="Status life cycle" src="data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)">/.exec(doc.info.description);
    expect(m).not.toBeNull();
    const inline = Buffer.from(m![1]!, "base64").toString("utf8");
    expect(inline).toBe(statusDiagramSvg(model, { legend: false }));
    expect(inline).not.toContain('class="legend"');
    const graph = (x: string) => x.split("\n").filter((l) => /class="(edge|node|node dashed|start)"/.test(l));
    expect(graph(inline)).toEqual(graph(svg));
    expect(graph(svg).length).toBeGreaterThanOrEqual(model.transitions.length);
    const numbered = doc.info.description.split("\n").filter((l) => /^\d+\. /.test(l));
    expect(numbered.map((l) => l.split(".")[0])).toEqual(model.transitions.map((_, i) => String(i + 1)));
  });
});
