// The hosted form of /idform (the service's specification, sections 2.9, 4.2, 8): the customer's own data
// entry. It shows the fields of the entity kind and of each submitted stakeholder, labelled by the fields'
// titles and prefilled; a submission is the /idform request with what was typed, checked by the same
// validators with the same messages as the API; a refused one re-shows the form with each error beside its
// field. The choices where the specification is silent are spec/sandbox.yaml hostedForm. Every value shown
// is escaped. HTTP I/O stays in server.ts; state and webhooks in service.ts.
import type { ValidationIssue } from "../validators/types.js";
import { choice, errorByRole, type FormField, type SandboxBinding } from "./binding.js";
import { escapeHtml, messagePage, PAGE_STYLE } from "./page.js";
import type { SandboxService } from "./service.js";

/** The form's texts and labels (spec/sandbox.yaml hostedForm, reducedPrefill). */
interface FormTexts {
  readonly labels: Readonly<Record<string, string>>;
  readonly messages: Readonly<Record<"title" | "invalid" | "document" | "submitted" | "submittedTitle", string>>;
  /** Fields still prefilled after the prefill window. */
  readonly keep: readonly string[];
}

/** One stakeholder as the form carries it: its place in the request, type, role and fields. */
interface StakeholderView {
  readonly index: number;
  readonly type: string;
  readonly role: string;
  readonly fields: readonly FormField[];
}

/** What one rendering of the form shows. */
export interface FormView {
  readonly id: string;
  readonly type: string;
  readonly kindTitle: string;
  readonly reduced: boolean;
  readonly fields: readonly FormField[];
  readonly stakeholders: readonly StakeholderView[];
  /** Input name (`fields.abn`, `stakeholders.0.fields.firstName`) to the value shown. */
  readonly values: ReadonlyMap<string, string>;
  /** Input name to its error messages; "" holds those that belong to no input. */
  readonly errors: ReadonlyMap<string, readonly string[]>;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The input name of a request path: `fields.abn`, `stakeholders.0.fields.firstName`. */
export const inputName = (path: readonly (string | number)[]): string => path.join(".");

/** The fields a form shows for a set of known ones and what was submitted: the known first (identifying ones leading), then any other submitted key. */
export function formFields(known: readonly FormField[], submitted: Record<string, unknown>, leading: readonly string[]): FormField[] {
  const rank = (f: FormField) => (leading.includes(f.name) ? leading.indexOf(f.name) : leading.length);
  const sorted = known
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
    .map((x) => x.f);
  const extra = Object.keys(submitted)
    .filter((k) => !known.some((f) => f.name === k))
    .map((name): FormField => ({ name }));
  return [...sorted, ...extra];
}

/** The stakeholders of a request as the form shows them, with the fields of their type. */
function stakeholderViews(binding: SandboxBinding, request: Record<string, unknown>, keep: readonly string[]): StakeholderView[] {
  return list(request.stakeholders).map((s, index) => {
    const shape = obj(s);
    const type = String(shape.type ?? "");
    return { index, type, role: String(shape.role ?? ""), fields: formFields(binding.spec.forms.stakeholderFields[type] ?? [], obj(shape.fields), keep) };
  });
}

/** A stored value as the text of an input ("" for null, absent, or hidden by the reduced prefill). */
function shown(value: unknown, hidden: boolean): string {
  if (hidden || value === null || value === undefined) return "";
  return typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
}

/** The values a form shows for a request: every field prefilled, except those the reduced prefill hides. */
export function prefilled(request: Record<string, unknown>, reduced: boolean, keep: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  const hide = (name: string) => reduced && !keep.includes(name);
  for (const [k, v] of Object.entries(obj(request.fields))) values.set(inputName(["fields", k]), shown(v, hide(k)));
  list(request.stakeholders).forEach((s, i) => {
    for (const [k, v] of Object.entries(obj(obj(s).fields))) values.set(inputName(["stakeholders", i, "fields", k]), shown(v, hide(k)));
  });
  return values;
}

/** Sets a key as an own, enumerable property (a posted `__proto__` is a key like any other, refused by the validators). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * One object of the request with the inputs posted under `prefix`: a typed value replaces the stored one; an
 * emptied input leaves the field out, unless the reduced prefill hid its value (then the caller's value stays).
 * Inputs not posted keep their stored value.
 */
function applyInputs(stored: Record<string, unknown>, posted: URLSearchParams, prefix: string, hidden: (name: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored)) put(out, k, v);
  for (const [name, value] of posted) {
    if (!name.startsWith(prefix)) continue;
    const key = name.slice(prefix.length);
    if (key === "" || key.includes(".")) continue;
    if (value !== "") put(out, key, value);
    else if (!(hidden(key) && Object.hasOwn(stored, key))) delete out[key];
  }
  return out;
}

/** The /idform request a submission makes: the stored one with the typed entity and stakeholder fields (stakeholders keep their type and role). */
export function submittedRequest(stored: Record<string, unknown>, posted: URLSearchParams, reduced: boolean, keep: readonly string[]): Record<string, unknown> {
  const hidden = (name: string) => reduced && !keep.includes(name);
  const fields = applyInputs(obj(stored.fields), posted, "fields.", hidden);
  const stakeholders = list(stored.stakeholders).map((s, i) => ({
    ...obj(s),
    fields: applyInputs(obj(obj(s).fields), posted, `stakeholders.${i}.fields.`, hidden),
  }));
  return { ...stored, fields, ...(Array.isArray(stored.stakeholders) ? { stakeholders } : {}) };
}

/** Validation issues by the input they belong to; an issue of a whole object (an unknown key, a missing stakeholder) goes to "". */
export function errorsByInput(issues: readonly ValidationIssue[], inputs: ReadonlySet<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const issue of issues) {
    const name = inputName(issue.path);
    const key = inputs.has(name) ? name : "";
    out.set(key, [...(out.get(key) ?? []), issue.message]);
  }
  return out;
}

/** The view of a form: its request's fields and stakeholders, with these values and errors. */
export function formView(
  binding: SandboxBinding,
  texts: FormTexts,
  id: string,
  request: Record<string, unknown>,
  reduced: boolean,
  values: ReadonlyMap<string, string>,
  issues: readonly ValidationIssue[] = [],
): FormView {
  const type = String(request.type ?? "");
  const kind = binding.spec.forms.kinds[type];
  const fields = formFields(kind?.fields ?? [], obj(request.fields), texts.keep);
  const stakeholders = stakeholderViews(binding, request, texts.keep);
  const inputs = new Set([
    ...fields.map((f) => inputName(["fields", f.name])),
    ...stakeholders.flatMap((s) => s.fields.map((f) => inputName(["stakeholders", s.index, "fields", f.name]))),
  ]);
  return { id, type, kindTitle: kind?.title ?? type, reduced, fields, stakeholders, values, errors: errorsByInput(issues, inputs) };
}

/** One labelled input (a select when the field has choices; a document is named, not typed), its errors beside it. */
function inputHtml(texts: FormTexts, view: FormView, name: string, field: FormField): string {
  const label = escapeHtml(field.label ?? texts.labels[field.name] ?? field.name);
  const id = `in-${escapeHtml(name)}`;
  const errors = view.errors.get(name) ?? [];
  const value = view.values.get(name) ?? "";
  const describedBy = errors.length ? ` aria-invalid="true" aria-describedby="${id}-error"` : "";
  const attrs = `id="${id}" name="${escapeHtml(name)}"${describedBy}`;
  let control: string;
  if (field.document) control = `<span class="doc" id="${id}">${escapeHtml(value ? texts.messages.document : "")}</span>`;
  else if (field.options && (value === "" || field.options.includes(value))) {
    const options = ["", ...field.options].map((o) => `<option value="${escapeHtml(o)}"${o === value ? " selected" : ""}>${escapeHtml(o)}</option>`).join("");
    control = `<select ${attrs}>${options}</select>`;
  } else control = `<input ${attrs} value="${escapeHtml(value)}">`;
  const messages = errors.length ? `<span class="error" id="${id}-error">${errors.map(escapeHtml).join("<br>")}</span>` : "";
  return `<div class="field${errors.length ? " invalid" : ""}"><label for="${id}">${label}</label>${control}${messages}</div>`;
}

/** A stakeholder's part of the form: its type and role shown, its fields editable. */
function stakeholderHtml(texts: FormTexts, view: FormView, s: StakeholderView): string {
  const inputs = s.fields.map((f) => inputHtml(texts, view, inputName(["stakeholders", s.index, "fields", f.name]), f)).join("\n");
  const heading = `${texts.labels.type ?? "type"}: <b>${escapeHtml(s.type)}</b> · ${texts.labels.role ?? "role"}: <b>${escapeHtml(s.role)}</b>`;
  return `<fieldset class="stakeholder" data-stakeholder="${s.index}"><legend>${heading}</legend>\n${inputs}</fieldset>`;
}

/** The hosted form's page: the entity's fields, then each stakeholder's; errors beside their fields and (those of no field) at the top. */
export function formHtml(texts: FormTexts, view: FormView): string {
  const general = view.errors.get("") ?? [];
  const anyError = [...view.errors.values()].some((m) => m.length);
  const summary = anyError
    ? `<div class="error summary" role="alert"><p>${escapeHtml(texts.messages.invalid)}</p>${general.map((m) => `<p>${escapeHtml(m)}</p>`).join("")}</div>`
    : "";
  const entity = view.fields.map((f) => inputHtml(texts, view, inputName(["fields", f.name]), f)).join("\n");
  const stakeholders = view.stakeholders.map((s) => stakeholderHtml(texts, view, s)).join("\n");
  const title = escapeHtml(texts.messages.title);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>${PAGE_STYLE}${FORM_STYLE}</style></head>
<body><h1>${title}</h1><p>${escapeHtml(view.kindTitle)} (<code>${escapeHtml(view.type)}</code>)${view.reduced ? " (prefilled data reduced)" : ""}.</p>${summary}
<form method="post" action="/_form/${escapeHtml(view.id)}" novalidate><fieldset class="entity"><legend>${escapeHtml(view.kindTitle)}</legend>
${entity}</fieldset>
${stakeholders}
<p><button type="submit">Submit</button></p></form></body></html>`;
}

const FORM_STYLE = `
form .field{display:grid;grid-template-columns:minmax(10em,16em) minmax(0,1fr);gap:2px 12px;margin:8px 0;align-items:start}
form .field label{font-weight:600;padding-top:4px}select{font:inherit;padding:3px 6px}form .field input,form .field select{width:100%;max-width:28em;box-sizing:border-box}
form .field .error,form .field .doc{grid-column:2}.error{color:#a11}.summary{border:1px solid #a11;background:#fdeaea;padding:4px 12px;margin:12px 0}
form .invalid input,form .invalid select{border:2px solid #a11}fieldset{border:1px solid #d8dde3;background:#fff;margin:12px 0;padding:8px 12px}
@media (max-width:600px){body{margin:12px}form .field{grid-template-columns:1fr}form .field .error,form .field .doc{grid-column:1}}`;

/** What a form request answers: its status and page. */
export interface FormAnswer {
  readonly status: number;
  readonly html: string;
}

/** The hosted form's two requests over the service: open it, and submit it. `check` is the API's check of a body (schema and NUL). */
export function hostedForm(binding: SandboxBinding, service: SandboxService, check: (schemaId: string, body: unknown) => readonly ValidationIssue[]) {
  const texts: FormTexts = {
    labels: choice<FormTexts["labels"]>(binding.spec, "hostedForm", "labels"),
    messages: choice<FormTexts["messages"]>(binding.spec, "hostedForm", "messages"),
    keep: choice<string[]>(binding.spec, "reducedPrefill", "keep"),
  };
  const schemaId = binding.spec.endpoints.idForm!.request!;
  // The caller's credentials were checked by /idform and are not stored (storedRequest): the check of a
  // submission stands a placeholder in for each, so only what the request carries is judged.
  const credentials = Object.fromEntries(choice<string[]>(binding.spec, "storedRequest", "omit").map((k) => [k, "checked-at-idform"]));
  return {
    async open(id: string): Promise<FormAnswer> {
      const opened = await service.openForm(id);
      const values = prefilled(opened.request, opened.reduced, texts.keep);
      return { status: 200, html: formHtml(texts, formView(binding, texts, id, opened.request, opened.reduced, values)) };
    },
    async submit(id: string, posted: URLSearchParams): Promise<FormAnswer> {
      const stored = await service.readForm(id);
      const request = submittedRequest(stored.request, posted, stored.reduced, texts.keep);
      const issues = check(schemaId, { ...request, ...credentials });
      if (issues.length) {
        // Re-shown: one more opening without saving (spec/sandbox.yaml hostedForm); refused past the limit.
        await service.openForm(id);
        const values = new Map(prefilled(stored.request, stored.reduced, texts.keep));
        for (const [name, value] of posted) values.set(name, value);
        return {
          status: errorByRole(binding.spec, "validation").httpStatus,
          html: formHtml(texts, formView(binding, texts, id, stored.request, stored.reduced, values, issues)),
        };
      }
      const trace = await service.submitForm(id, request);
      return { status: 200, html: messagePage(texts.messages.submittedTitle, texts.messages.submitted.replace("{trace}", trace)) };
    },
  };
}
