// The hosted form's pure parts, given and wanted: which inputs a form shows and in what order, the values it
// prefills, the request a submission makes, where each error goes, and the page's markup for each kind of input.
// form.test.ts drives the same parts through HTTP and form-browser.test.ts in Chromium; these pin the rules one by one.
import { describe, expect, it } from "vitest";
import type { FormField, SandboxBinding } from "../../templates/sandbox/binding.js";
import { errorsByInput, formFields, formHtml, formView, prefilled, submittedRequest, type FormView } from "../../templates/sandbox/form.js";

const TEXTS = {
  labels: { country: "Country", type: "Stakeholder type", role: "Role" },
  messages: { title: "Form <title>", invalid: "Fix <these>", document: "Carried <doc>", submitted: "ok {trace}", submittedTitle: "Done" },
  keep: ["country", "name"],
};

/** A binding with only the forms the form reads: one kind with a titled, a choice and a document field, one stakeholder type. */
const BINDING = {
  spec: {
    forms: {
      kinds: {
        company: {
          title: "Company <Pty>",
          fields: [
            { name: "abn", label: "ABN" },
            { name: "country", options: ["AU", "NZ"] },
            { name: "logo", document: true },
            { name: "name" },
          ] satisfies FormField[],
          roles: ["director"],
        },
      },
      stakeholderFields: { individual: [{ name: "lastName", label: "Last name" }, { name: "firstName" }] satisfies FormField[] },
    },
  },
} as unknown as SandboxBinding;

const names = (fields: readonly FormField[]) => fields.map((f) => f.name);

describe("formFields: the known fields first, the leading ones in their order, then any other submitted key", () => {
  const known: FormField[] = [{ name: "a" }, { name: "b" }, { name: "c" }, { name: "d" }];
  it("leading fields move to the front in the order of the leading list; the rest keep their order", () => {
    expect(names(formFields(known, {}, ["c", "a"]))).toEqual(["c", "a", "b", "d"]);
    expect(names(formFields(known, {}, []))).toEqual(["a", "b", "c", "d"]);
    expect(names(formFields(known, {}, ["zz"]))).toEqual(["a", "b", "c", "d"]);
  });
  it("a submitted key no known field has is added after them, as a bare field; a known one is not repeated", () => {
    expect(formFields(known, { b: 1, extra: "x", other: null }, [])).toEqual([...known, { name: "extra" }, { name: "other" }]);
  });
});

describe("prefilled: every submitted value as an input's text", () => {
  const request = {
    fields: { name: "Ann", age: 7, ok: false, tags: ["x"], gone: null },
    stakeholders: [{ fields: { firstName: "Bo", score: 1.5 } }, "not an object"],
  };
  it("strings as they are, numbers and booleans as their text, other values as JSON, null as empty; stakeholders by index", () => {
    expect([...prefilled(request, false, [])]).toEqual([
      ["fields.name", "Ann"],
      ["fields.age", "7"],
      ["fields.ok", "false"],
      ["fields.tags", '["x"]'],
      ["fields.gone", ""],
      ["stakeholders.0.fields.firstName", "Bo"],
      ["stakeholders.0.fields.score", "1.5"],
    ]);
  });
  it("reduced: only the kept fields are shown, the others empty", () => {
    const values = prefilled(request, true, ["name", "firstName"]);
    expect(values.get("fields.name")).toBe("Ann");
    expect(values.get("fields.age")).toBe("");
    expect(values.get("fields.ok")).toBe("");
    expect(values.get("stakeholders.0.fields.firstName")).toBe("Bo");
    expect(values.get("stakeholders.0.fields.score")).toBe("");
  });
  it("a request without fields or stakeholders, or with values that are not objects, prefills nothing", () => {
    expect(prefilled({}, false, []).size).toBe(0);
    expect(prefilled({ fields: ["a"], stakeholders: { 0: { fields: { a: 1 } } } }, false, []).size).toBe(0);
  });
});

describe("submittedRequest: the stored request with what was typed", () => {
  const stored = {
    type: "company",
    country: "AU",
    fields: { abn: "1", name: "Old", logo: "data:x" },
    stakeholders: [{ type: "individual", role: "director", fields: { firstName: "Ann" } }],
  };
  const post = (entries: [string, string][]) => new URLSearchParams(entries);
  it("a typed value replaces the stored one; an input not posted keeps its value; stakeholders keep type and role", () => {
    const out = submittedRequest(
      stored,
      post([
        ["fields.abn", "51824753556"],
        ["stakeholders.0.fields.firstName", "Bo"],
        ["stakeholders.0.fields.lastName", "Li"],
      ]),
      false,
      [],
    );
    expect(out).toEqual({
      ...stored,
      fields: { abn: "51824753556", name: "Old", logo: "data:x" },
      stakeholders: [{ type: "individual", role: "director", fields: { firstName: "Bo", lastName: "Li" } }],
    });
  });
  it("an emptied input leaves the field out", () => {
    expect(submittedRequest(stored, post([["fields.name", ""]]), false, []).fields).toEqual({ abn: "1", logo: "data:x" });
  });
  it("reduced: a hidden value left blank keeps the caller's; a kept one emptied is left out; a hidden field never stored stays out", () => {
    const out = submittedRequest(
      stored,
      post([
        ["fields.abn", ""],
        ["fields.name", ""],
        ["fields.newOne", ""],
      ]),
      true,
      ["name"],
    );
    expect(out.fields).toEqual({ abn: "1", logo: "data:x" });
  });
  it("names outside the prefixes, an empty key and a dotted key are ignored", () => {
    const out = submittedRequest(
      stored,
      post([
        ["fields.", "x"],
        ["fields.a.b", "x"],
        ["other", "x"],
        ["stakeholders.1.fields.firstName", "x"],
        ["stakeholders.0.fields.", "x"],
      ]),
      false,
      [],
    );
    expect(out).toEqual(stored);
  });
  it("a posted __proto__ becomes an own key, and no prototype changes", () => {
    const out = submittedRequest(stored, post([["fields.__proto__", "x"]]), false, []);
    const fields = out.fields as Record<string, unknown>;
    expect(Object.keys(fields)).toContain("__proto__");
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(fields, "__proto__")).toMatchObject({ value: "x", enumerable: true, writable: true, configurable: true });
  });
  it("a request without stakeholders gets none; non-object parts count as empty", () => {
    expect(submittedRequest({ type: "x" }, post([["fields.a", "1"]]), false, [])).toEqual({ type: "x", fields: { a: "1" } });
    expect(submittedRequest({ fields: "bad", stakeholders: ["bad"] }, post([]), false, [])).toEqual({ fields: {}, stakeholders: [{ fields: {} }] });
  });
});

describe("errorsByInput: each message under its input, the others under ''", () => {
  it("groups by input name, in order; an unknown path goes to ''", () => {
    const issues = [
      { path: ["fields", "abn"], message: "m1" },
      { path: ["fields", "abn"], message: "m2" },
      { path: ["stakeholders", 0, "fields", "firstName"], message: "m3" },
      { path: ["fields"], message: "m4" },
      { path: [], message: "m5" },
    ] as never[];
    const out = errorsByInput(issues, new Set(["fields.abn", "stakeholders.0.fields.firstName"]));
    expect([...out]).toEqual([
      ["fields.abn", ["m1", "m2"]],
      ["stakeholders.0.fields.firstName", ["m3"]],
      ["", ["m4", "m5"]],
    ]);
  });
});

describe("formView: the request's kind, fields and stakeholders", () => {
  const request = {
    type: "company",
    fields: { extra: "e" },
    stakeholders: [{ type: "individual", role: "director", fields: { middle: "M" } }, { type: "robot" }, null],
  };
  it("the kind's title and fields (kept ones leading, extras after), each stakeholder with its type's fields and its submitted extras", () => {
    const view = formView(BINDING, TEXTS, "f1", request, true, new Map(), [
      { path: ["fields", "extra"], message: "bad" },
      { path: ["stakeholders", 0, "fields", "middle"], message: "odd" },
    ] as never[]);
    expect(view).toMatchObject({ id: "f1", type: "company", kindTitle: "Company <Pty>", reduced: true });
    expect(names(view.fields)).toEqual(["country", "name", "abn", "logo", "extra"]);
    expect(view.stakeholders.map((s) => [s.index, s.type, s.role, names(s.fields)])).toEqual([
      [0, "individual", "director", ["lastName", "firstName", "middle"]],
      [1, "robot", "", []],
      [2, "", "", []],
    ]);
    expect([...view.errors]).toEqual([
      ["fields.extra", ["bad"]],
      ["stakeholders.0.fields.middle", ["odd"]],
    ]);
  });
  it("a kind the forms do not know: its type as the title, only the submitted fields", () => {
    const view = formView(BINDING, TEXTS, "f2", { type: "alien", fields: { x: 1 } }, false, new Map());
    expect(view.kindTitle).toBe("alien");
    expect(names(view.fields)).toEqual(["x"]);
    expect(view.stakeholders).toEqual([]);
    expect(formView(BINDING, TEXTS, "f3", {}, false, new Map()).type).toBe("");
  });
});

describe("formHtml: the page", () => {
  const view = (over: Partial<FormView> = {}): FormView => ({
    ...formView(BINDING, TEXTS, "id<1>", { type: "company", stakeholders: [{ type: "individual", role: "director<x>" }] }, false, new Map()),
    ...over,
  });
  /** The markup of one field's block. */
  const block = (html: string, name: string) => new RegExp(`<div class="field[^"]*"><label for="in-${name}">.*?</div>`).exec(html)?.[0];

  it("title, kind and type, the form's action and every input, escaped; no error summary when nothing is wrong", () => {
    const html = formHtml(TEXTS, view());
    expect(html).toContain("<title>Form &#60;title&#62;</title>");
    expect(html).toContain("<h1>Form &#60;title&#62;</h1><p>Company &#60;Pty&#62; (<code>company</code>).</p>\n<form");
    expect(html).toContain('<form method="post" action="/_form/id&#60;1&#62;" novalidate><fieldset class="entity"><legend>Company &#60;Pty&#62;</legend>');
    expect(html).not.toContain('role="alert"');
    expect(html).not.toContain("field invalid");
    expect(html).not.toContain("aria-invalid");
    expect(html).toContain('<p><button type="submit">Submit</button></p></form></body></html>');
  });
  it("a reduced form says so", () => {
    expect(formHtml(TEXTS, view({ reduced: true }))).toContain("(<code>company</code>) (prefilled data reduced).</p>");
  });
  it("an input: labelled by its label, else the texts' label, else its name; its value escaped", () => {
    const html = formHtml(TEXTS, view({ values: new Map([["fields.abn", 'a"<b>']]) }));
    expect(block(html, "fields.abn")).toBe(
      '<div class="field"><label for="in-fields.abn">ABN</label><input id="in-fields.abn" name="fields.abn" value="a&#34;&#60;b&#62;"></div>',
    );
    expect(block(html, "fields.name")).toBe(
      '<div class="field"><label for="in-fields.name">name</label><input id="in-fields.name" name="fields.name" value=""></div>',
    );
    expect(block(html, "fields.country")).toContain('<label for="in-fields.country">Country</label>');
  });
  it("a field with choices is a select with an empty choice first and the value selected; a value outside the choices is a text input", () => {
    const select = block(formHtml(TEXTS, view({ values: new Map([["fields.country", "NZ"]]) })), "fields.country");
    expect(select).toBe(
      '<div class="field"><label for="in-fields.country">Country</label><select id="in-fields.country" name="fields.country"><option value=""></option><option value="AU">AU</option><option value="NZ" selected>NZ</option></select></div>',
    );
    expect(block(formHtml(TEXTS, view()), "fields.country")).toContain('<option value="" selected></option>');
    expect(block(formHtml(TEXTS, view({ values: new Map([["fields.country", "XX"]]) })), "fields.country")).toContain(
      '<input id="in-fields.country" name="fields.country" value="XX">',
    );
  });
  it("a document is named, not typed: the document text when it has a value, nothing when not", () => {
    expect(block(formHtml(TEXTS, view({ values: new Map([["fields.logo", "data:x"]]) })), "fields.logo")).toBe(
      '<div class="field"><label for="in-fields.logo">logo</label><span class="doc" id="in-fields.logo">Carried &#60;doc&#62;</span></div>',
    );
    expect(block(formHtml(TEXTS, view()), "fields.logo")).toContain('<span class="doc" id="in-fields.logo"></span>');
  });
  it("errors beside their input (aria-described, escaped, one per line); those of no input and the summary at the top", () => {
    const errors = new Map([
      ["fields.abn", ["too <short>", "digits"]],
      ["", ["unknown <key>", "second"]],
    ]);
    const html = formHtml(TEXTS, view({ errors }));
    expect(block(html, "fields.abn")).toBe(
      '<div class="field invalid"><label for="in-fields.abn">ABN</label><input id="in-fields.abn" name="fields.abn" aria-invalid="true" aria-describedby="in-fields.abn-error" value=""><span class="error" id="in-fields.abn-error">too &#60;short&#62;<br>digits</span></div>',
    );
    expect(html).toContain('</p><div class="error summary" role="alert"><p>Fix &#60;these&#62;</p><p>unknown &#60;key&#62;</p><p>second</p></div>\n<form');
    expect(block(html, "fields.name")).toBe(
      '<div class="field"><label for="in-fields.name">name</label><input id="in-fields.name" name="fields.name" value=""></div>',
    );
  });
  it("an error list that is empty is no error", () => {
    expect(formHtml(TEXTS, view({ errors: new Map([["fields.abn", []]]) }))).not.toContain('role="alert"');
    expect(
      formHtml(
        TEXTS,
        view({
          errors: new Map([
            ["fields.abn", []],
            ["fields.name", ["x"]],
          ]),
        }),
      ),
    ).toContain('role="alert"');
  });
  it("each stakeholder in its fieldset: its type and role shown (escaped), its fields named by index", () => {
    const html = formHtml(TEXTS, view());
    expect(html).toContain(
      '<fieldset class="stakeholder" data-stakeholder="0"><legend>Stakeholder type: <b>individual</b> · Role: <b>director&#60;x&#62;</b></legend>\n<div class="field"><label for="in-stakeholders.0.fields.lastName">Last name</label>',
    );
    expect(html).toContain('</div>\n<div class="field"><label for="in-stakeholders.0.fields.firstName">firstName</label>');
    const bare = formHtml({ ...TEXTS, labels: {} }, view());
    expect(bare).toContain("<legend>type: <b>individual</b> · role: <b>director&#60;x&#62;</b></legend>");
  });
  it("the entity's inputs one per line inside its fieldset", () => {
    expect(formHtml(TEXTS, view())).toMatch(
      /<legend>Company &#60;Pty&#62;<\/legend>\n<div class="field"><label for="in-fields\.country">[^\n]*<\/div>\n<div class="field"><label for="in-fields\.name">/,
    );
  });
});
