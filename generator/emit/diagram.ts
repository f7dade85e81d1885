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
      const fromRank = rank.get(from);
      if (fromRank === undefined) continue;
      for (const to of targets(t)) {
        if (to === ANY || rank.has(to)) continue;
        rank.set(to, fromRank + 1);
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
function border(node: Node, towardX: number, towardY: number): [number, number] {
  const deltaX = towardX - node.x;
  const deltaY = towardY - node.y;
  const scaleX = deltaX === 0 ? Infinity : node.w / 2 / Math.abs(deltaX);
  const scaleY = deltaY === 0 ? Infinity : NODE_H / 2 / Math.abs(deltaY);
  const scale = Math.min(scaleX, scaleY);
  return [node.x + deltaX * scale, node.y + deltaY * scale];
}

function nodeSvg(node: Node): string {
  if (node.id === START) {
    return `<circle cx="${num(node.x)}" cy="${num(node.y)}" r="9" class="start"/><text x="${num(node.x)}" y="${num(node.y - 16)}" class="note">${esc(node.label)}</text>`;
  }
  const left = node.x - node.w / 2;
  return `<rect x="${num(left)}" y="${num(node.y - NODE_H / 2)}" width="${num(node.w)}" height="${NODE_H}" rx="8" class="${node.dashed ? "node dashed" : "node"}"/><text x="${num(node.x)}" y="${num(node.y + 4.5)}" class="label">${esc(node.label)}</text>`;
}

/** An arrow with its number; bent when the opposite arrow exists, a loop when it returns to its node. */
function edgeSvg(from: Node, to: Node, label: number, bend: number): string {
  if (from === to) {
    const top = from.y - NODE_H / 2;
    const loopPath = `M ${num(from.x - 14)} ${num(top)} C ${num(from.x - 34)} ${num(top - 44)} ${num(from.x + 34)} ${num(top - 44)} ${num(from.x + 14)} ${num(top)}`;
    return `<path d="${loopPath}" class="edge"/>${badge(from.x, top - 34, label)}`;
  }
  const midX = (from.x + to.x) / 2;
  const midY = (from.y + to.y) / 2;
  const len = Math.hypot(to.x - from.x, to.y - from.y) || 1;
  const controlX = midX + (-(to.y - from.y) / len) * bend;
  const controlY = midY + ((to.x - from.x) / len) * bend;
  const [startX, startY] = border(from, controlX, controlY);
  const [endX, endY] = border(to, controlX, controlY);
  return `<path d="M ${num(startX)} ${num(startY)} Q ${num(controlX)} ${num(controlY)} ${num(endX)} ${num(endY)}" class="edge"/>${badge((startX + 2 * controlX + endX) / 4, (startY + 2 * controlY + endY) / 4, label)}`;
}

const badge = (centerX: number, centerY: number, number: number) =>
  `<circle cx="${num(centerX)}" cy="${num(centerY)}" r="9" class="badge"/><text x="${num(centerX)}" y="${num(centerY + 4)}" class="badge-text">${number}</text>`;

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
  return model.transitions.map((transition) => {
    const parts = [`${transition.from ?? START} → ${targets(transition).join(", ")}: ${transition.trigger}`];
    if (transition.condition) parts.push(`when ${transition.condition}`);
    if (transition.alsoHappens) parts.push(`also: ${transition.alsoHappens}`);
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
  transitionLines(model).forEach((line, index) => {
    wrap(plain(`${index + 1}. ${line}`), LEGEND_CHARS).forEach((text, j) => out.push({ text: j ? `    ${text}` : text, strong: false }));
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
  let nextX = MARGIN + 60;
  const extra: Node[] = unplaced.map((id) => {
    const boxWidth = nodeWidth(id);
    const node = { id, label: id, x: nextX + boxWidth / 2 - 42, y: graphBottom + 40, w: boxWidth, dashed: true };
    nextX += boxWidth + 16;
    return node;
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
  model.transitions.forEach((transition, index) => {
    const from = nodes.get(transition.from ?? START)!;
    for (const to of targets(transition)) {
      const target = to === ANY ? from : nodes.get(to)!;
      const reverse = pairs.has(`${to}>${transition.from ?? START}`) && to !== (transition.from ?? START);
      edges.push(edgeSvg(from, target, index + 1, reverse ? 22 : 0));
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
