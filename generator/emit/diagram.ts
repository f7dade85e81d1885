// Emits generated/statuses.svg: the status life cycle of spec/statuses.yaml (the service's specification,
// section 3) as a diagram. Laid out here, without a layout engine or the network: statuses in columns by
// their distance from "no prior state", each transition an arrow with a number, the numbers explained
// below with trigger, condition and what also happens. Same model, same bytes.
import type { Model, Transition } from "../model/types.js";
import { BANNER, type OutputFile } from "./output.js";

const START = "(none)";
const ANY = "any";
const UNSTATED = "not stated";
const COL = 190;
const ROW = 96;
const NODE_H = 34;
const MARGIN = 24;
const LEGEND_LINE = 17;
const LEGEND_CHARS = 128;

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const plain = (s: string) => s.replace(/`/g, "");
const num = (n: number) => String(Math.round(n * 10) / 10);

interface Node {
  readonly id: string;
  readonly label: string;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly dashed: boolean;
}

const nodeWidth = (label: string) => Math.max(84, label.length * 7.2 + 26);
const targets = (t: Transition) => (t.to.length ? [...t.to] : [UNSTATED]);

/** Columns by breadth-first distance from the start and from "any"; rows in order of first appearance. */
function layout(model: Model): { nodes: Map<string, Node>; unplaced: string[] } {
  const rank = new Map<string, number>([
    [START, 0],
    [ANY, 0],
  ]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const t of model.transitions) {
      const from = t.from ?? START;
      const r = rank.get(from);
      if (r === undefined) continue;
      for (const to of targets(t)) {
        if (to === ANY || rank.has(to)) continue;
        rank.set(to, r + 1);
        changed = true;
      }
    }
  }
  const columns = new Map<number, string[]>();
  for (const [id, r] of rank) columns.set(r, [...(columns.get(r) ?? []), id]);
  const nodes = new Map<string, Node>();
  const known = new Set(model.verificationStatuses.map((s) => s.value));
  for (const [r, ids] of columns) {
    ids.forEach((id, row) => {
      const label = id === START ? "no prior state" : id === ANY ? "any status" : id;
      nodes.set(id, { id, label, x: MARGIN + 60 + r * COL, y: MARGIN + 56 + row * ROW, w: nodeWidth(label), dashed: !known.has(id) });
    });
  }
  const unplaced = model.verificationStatuses.map((s) => s.value).filter((v) => !rank.has(v));
  return { nodes, unplaced };
}

/** Where the line from a node's centre towards (tx, ty) leaves its box. */
function border(n: Node, tx: number, ty: number): [number, number] {
  const dx = tx - n.x;
  const dy = ty - n.y;
  const sx = dx === 0 ? Infinity : n.w / 2 / Math.abs(dx);
  const sy = dy === 0 ? Infinity : NODE_H / 2 / Math.abs(dy);
  const s = Math.min(sx, sy);
  return [n.x + dx * s, n.y + dy * s];
}

function nodeSvg(n: Node): string {
  if (n.id === START) {
    return `<circle cx="${num(n.x)}" cy="${num(n.y)}" r="9" class="start"/><text x="${num(n.x)}" y="${num(n.y - 16)}" class="note">${esc(n.label)}</text>`;
  }
  const x = n.x - n.w / 2;
  return `<rect x="${num(x)}" y="${num(n.y - NODE_H / 2)}" width="${num(n.w)}" height="${NODE_H}" rx="8" class="${n.dashed ? "node dashed" : "node"}"/><text x="${num(n.x)}" y="${num(n.y + 4.5)}" class="label">${esc(n.label)}</text>`;
}

/** An arrow with its number; bent when the opposite arrow exists, a loop when it returns to its node. */
function edgeSvg(a: Node, b: Node, label: number, bend: number): string {
  if (a === b) {
    const top = a.y - NODE_H / 2;
    const d = `M ${num(a.x - 14)} ${num(top)} C ${num(a.x - 34)} ${num(top - 44)} ${num(a.x + 34)} ${num(top - 44)} ${num(a.x + 14)} ${num(top)}`;
    return `<path d="${d}" class="edge"/>${badge(a.x, top - 34, label)}`;
  }
  const mx = (a.x + b.x) / 2;
  const my = (a.y + b.y) / 2;
  const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  const cx = mx + (-(b.y - a.y) / len) * bend;
  const cy = my + ((b.x - a.x) / len) * bend;
  const [x1, y1] = border(a, cx, cy);
  const [x2, y2] = border(b, cx, cy);
  return `<path d="M ${num(x1)} ${num(y1)} Q ${num(cx)} ${num(cy)} ${num(x2)} ${num(y2)}" class="edge"/>${badge((x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4, label)}`;
}

const badge = (x: number, y: number, n: number) =>
  `<circle cx="${num(x)}" cy="${num(y)}" r="9" class="badge"/><text x="${num(x)}" y="${num(y + 4)}" class="badge-text">${n}</text>`;

/** Words into lines of at most `width` characters (a long word stays whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** Each transition as one line of Markdown, in the order of its number: from, to, trigger, condition, what also happens. */
export function transitionLines(model: Model): string[] {
  return model.transitions.map((t) => {
    const parts = [`${t.from ?? START} → ${targets(t).join(", ")}: ${t.trigger}`];
    if (t.condition) parts.push(`when ${t.condition}`);
    if (t.alsoHappens) parts.push(`also: ${t.alsoHappens}`);
    return parts.join("; ");
  });
}

/** The statuses whose transitions are not shown (drawn dashed, apart from the graph). */
export const unplacedStatuses = (model: Model): string[] => layout(model).unplaced;

/** What the dashed boxes mean; undefined when there are none. */
export const dashedNote = (unplaced: readonly string[]): string | undefined =>
  unplaced.length ? `Dashed: ${unplaced.join(", ")} — their transitions are not shown in the service's specification.` : undefined;

function legendLines(model: Model, unplaced: readonly string[]): { text: string; strong: boolean }[] {
  const out: { text: string; strong: boolean }[] = [];
  transitionLines(model).forEach((line, i) => {
    wrap(plain(`${i + 1}. ${line}`), LEGEND_CHARS).forEach((text, j) => out.push({ text: j ? `    ${text}` : text, strong: false }));
  });
  out.push({ text: "", strong: false });
  for (const rule of model.attempts.rules) out.push(...wrap(plain(`Attempts: ${rule}`), LEGEND_CHARS).map((text) => ({ text, strong: false })));
  const sub = model.submissionStatuses.map((s) => `${s.value}${s.locksResubmission ? " (no further resubmissions)" : ""}`).join(", ");
  out.push({ text: `Submission statuses: ${sub}.`, strong: false });
  const dashed = dashedNote(unplaced);
  if (dashed) out.push({ text: dashed, strong: false });
  return out;
}

const HEADING = "Verification status life cycle (the service's specification, section 3)";

/**
 * The diagram. `legend: false` leaves out the text below the graph, for a page that shows the numbered
 * transitions as text of its own (the reference page: text there stays readable at any width).
 */
export function statusDiagramSvg(model: Model, { legend: withLegend = true } = {}): string {
  const { nodes, unplaced } = layout(model);
  // Statuses whose transitions are not shown: one dashed row below the graph.
  const graphBottom = Math.max(...[...nodes.values()].map((n) => n.y)) + NODE_H;
  let x = MARGIN + 60;
  const extra: Node[] = unplaced.map((id) => {
    const w = nodeWidth(id);
    const n = { id, label: id, x: x + w / 2 - 42, y: graphBottom + 40, w, dashed: true };
    x += w + 16;
    return n;
  });
  const placed = [...nodes.values(), ...extra];
  const graphWidth = Math.max(...placed.map((n) => n.x + n.w / 2)) + MARGIN;
  const legend = withLegend ? legendLines(model, unplaced) : [];
  const legendTop = graphBottom + (extra.length ? 40 + NODE_H : 0) + 36;
  const textWidth = withLegend ? LEGEND_CHARS * 6.1 : HEADING.length * 7.6;
  const width = Math.ceil(Math.max(graphWidth, MARGIN * 2 + textWidth));
  const height = Math.ceil((withLegend ? legendTop + legend.length * LEGEND_LINE : legendTop - 36 + NODE_H / 2) + MARGIN);

  const pairs = new Set(model.transitions.flatMap((t) => targets(t).map((to) => `${t.from ?? START}>${to}`)));
  const edges: string[] = [];
  model.transitions.forEach((t, i) => {
    const from = nodes.get(t.from ?? START)!;
    for (const to of targets(t)) {
      const target = to === ANY ? from : nodes.get(to)!;
      const reverse = pairs.has(`${to}>${t.from ?? START}`) && to !== (t.from ?? START);
      edges.push(edgeSvg(from, target, i + 1, reverse ? 22 : 0));
    }
  });
  const legendSvg = legend.map((l, i) => `<text x="${MARGIN}" y="${num(legendTop + i * LEGEND_LINE)}" class="legend">${esc(l.text)}</text>`);

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="title desc">`,
    `<title id="title">Verification status life cycle</title>`,
    `<desc id="desc">${esc(`Statuses and transitions of the service's specification, section 3, from spec/statuses.yaml; ${BANNER}.`)}</desc>`,
    "<defs>",
    `<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#3d4a5c"/></marker>`,
    "<style>",
    "text{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;fill:#1f2933}",
    ".node{fill:#eef3fb;stroke:#3d4a5c;stroke-width:1.4}.dashed{fill:#fff;stroke-dasharray:5 4}",
    ".start{fill:#3d4a5c}.label{font-size:13px;text-anchor:middle}.note{font-size:11px;text-anchor:middle;fill:#52606d}",
    ".edge{fill:none;stroke:#3d4a5c;stroke-width:1.3;marker-end:url(#arrow)}",
    ".badge{fill:#fff;stroke:#b7410e;stroke-width:1.3}.badge-text{font-size:11px;font-weight:600;text-anchor:middle;fill:#b7410e}",
    ".legend{font-size:11.5px}.heading{font-size:14px;font-weight:600}",
    "</style>",
    "</defs>",
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${MARGIN}" y="${MARGIN}" class="heading">${esc(HEADING)}</text>`,
    ...edges,
    ...placed.map(nodeSvg),
    ...legendSvg,
    "</svg>",
    "",
  ].join("\n");
}

export const DIAGRAM_FILE = "statuses.svg";

export function emitDiagram(model: Model): OutputFile[] {
  return [{ path: DIAGRAM_FILE, contents: statusDiagramSvg(model) }];
}
