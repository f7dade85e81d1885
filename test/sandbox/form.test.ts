// The hosted form of /idform over HTTP (in-process: templates/sandbox/form.ts through server.ts): labels from
// the fields' titles, the submitted stakeholders shown and carried, a submission checked by the API's own
// validators with the API's messages (each error beside its field, the typed values re-shown, escaped), a
// refused submission counted as spec/sandbox.yaml hostedForm says, and the webhooks /verify sends for the
// same data (the entity's and one per individual stakeholder).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { choice } from "../../templates/sandbox/binding.js";
import { olderStakeholderTrace } from "../../templates/sandbox/service.js";
import type { Db } from "../../templates/sandbox/store/index.js";
import { request, webhookErrors, olderBody as older } from "./helpers.js";
import { binding, harness, memoryDb, outbox, type Harness } from "./inprocess.js";

let db: Db;
let h: Harness;

beforeAll(async () => {
  db = await memoryDb();
  h = await harness(db, { dispatch: false });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await db?.close();
});

const soleTrader = (userId: string, name = "Form Trader") => ({
  metadata_userId: userId,
  type: "soleTrader",
  fields: { country: "AUS", name, principalPlaceOfBusiness: "2 Pitt St", abn: "51824753556" },
  stakeholders: [{ type: "individual", role: "individuals", fields: { country: "AUS", firstName: "Ann", lastName: "Lee" } }],
});

async function newForm(body: Record<string, unknown>): Promise<string> {
  const r = await request(h.url, "POST", "/idform", older({ serviceLink_dataAccessType: "idForm", ...body }));
  expect(r.status).toBe(200);
  return r.body.verificationUuid as string;
}
const open = async (id: string) => {
  const r = await fetch(`${h.url}/_form/${id}`);
  return { status: r.status, html: await r.text() };
};
const post = async (id: string, inputs: Record<string, string>) => {
  const r = await fetch(`${h.url}/_form/${id}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(inputs).toString(),
  });
  return { status: r.status, html: await r.text() };
};
/** The `<div class="field">` of one input: its label, control and errors. */
function fieldOf(html: string, name: string): string {
  const m = new RegExp(`<div class="field[^"]*"><label for="in-${name.replace(/\./g, "\\.")}">[\\s\\S]*?</div>`).exec(html);
  expect(m, `field ${name}`).not.toBeNull();
  return m![0];
}
const formRow = async (id: string) =>
  (await db.query("SELECT attempts, opens_since_save FROM forms WHERE id = $1", [id])).map((r) => [Number(r.attempts), Number(r.opens_since_save)])[0];
const childrenOf = async (trace: string) =>
  (await db.query("SELECT trace FROM verifications WHERE parent_trace = $1 ORDER BY trace", [trace])).map((r) => String(r.trace));

describe("the hosted form shows the fields and stakeholders", () => {
  it("labels each input by its field's title (country by spec/sandbox.yaml), prefilled; stakeholders with their type, role and labelled fields", async () => {
    const id = await newForm(soleTrader("form-labels"));
    const page = await open(id);
    expect(page.status).toBe(200);
    const labels = [...page.html.matchAll(/<label for="in-fields\.[^"]+">([^<]*)<\/label>/g)].map((m) => m[1]);
    expect(labels).toEqual(["Country", "Name", "Principal place of business", "ABN"]);
    expect(fieldOf(page.html, "fields.abn")).toContain('value="51824753556"');
    const stakeholder = /<fieldset class="stakeholder" data-stakeholder="0">[\s\S]*?<\/fieldset>/.exec(page.html)![0];
    expect(stakeholder).toContain("<legend>Stakeholder type: <b>individual</b> · Role: <b>individuals</b></legend>");
    expect(fieldOf(stakeholder, "stakeholders.0.fields.firstName")).toContain(
      '>First name</label><input id="in-stakeholders.0.fields.firstName" name="stakeholders.0.fields.firstName" value="Ann">',
    );
    expect(fieldOf(stakeholder, "stakeholders.0.fields.dateOfBirth")).toContain(">Date of birth (DD/MM/YYYY)</label>");
    // A field with choices is a select, the submitted value chosen.
    expect(fieldOf(stakeholder, "stakeholders.0.fields.gender")).toContain(
      '<select id="in-stakeholders.0.fields.gender" name="stakeholders.0.fields.gender"><option value="" selected></option><option value="male">male</option>',
    );
    expect(page.html).not.toMatch(/>(principalPlaceOfBusiness|firstName|abn)</);
  });
});

describe("every input of the shipped spec's forms has a human label", () => {
  it("each field of a forms-call kind and of a stakeholder type has a title in spec/ or a label in hostedForm.labels", () => {
    const labels = choice<Record<string, string>>(binding.spec, "hostedForm", "labels");
    const { kinds, stakeholderFields } = binding.spec.forms;
    expect(Object.keys(kinds).sort()).toEqual(["publicCompany", "regulatedTrust", "soleTrader"]);
    const fields = [...Object.values(kinds).flatMap((k) => k.fields), ...Object.values(stakeholderFields).flat()];
    expect(fields.length).toBeGreaterThan(30);
    expect(fields.filter((f) => !(f.label ?? labels[f.name])).map((f) => f.name)).toEqual([]);
    expect(kinds.soleTrader!.roles).toEqual(["individuals"]);
  });
});

describe("a submission is checked like the API checks /idform", () => {
  it("refuses abn=123 and a bad stakeholder name with the API's messages, each beside its field, what was typed re-shown and escaped; nothing created or sent", async () => {
    const id = await newForm(soleTrader("form-invalid"));
    await open(id);
    const typed = { "fields.abn": "123", "fields.name": 'Trader "<script>alert(1)</script>', "stakeholders.0.fields.firstName": "Ann1" };
    const page = await post(id, typed);
    expect(page.status).toBe(422);
    expect(page.html).toContain('<div class="error summary" role="alert"><p>Some fields need your attention; see the messages beside them.</p></div>');
    // The same request to the API: the same messages (the form's check is the API's).
    const api = await request(
      h.url,
      "POST",
      "/idform",
      older({
        serviceLink_dataAccessType: "idForm",
        ...soleTrader("form-invalid"),
        fields: { ...soleTrader("x").fields, abn: "123" },
        stakeholders: [{ type: "individual", role: "individuals", fields: { country: "AUS", firstName: "Ann1", lastName: "Lee" } }],
      }),
    );
    expect(api.status).toBe(422);
    const messages = Object.fromEntries((api.body.details as { path: (string | number)[]; message: string }[]).map((d) => [d.path.join("."), d.message]));
    expect(messages).toEqual({
      "fields.abn": "ABN must be exactly 11 digits.",
      "stakeholders.0.fields.firstName": "Invalid string: must contain only letters, apostrophes, spaces and hyphens",
    });
    for (const [name, message] of Object.entries(messages)) {
      const field = fieldOf(page.html, name);
      expect(field).toContain(`aria-invalid="true" aria-describedby="in-${name}-error" value="${name === "fields.abn" ? "123" : "Ann1"}">`);
      expect(field).toContain(`<span class="error" id="in-${name}-error">${message}</span>`);
    }
    expect(fieldOf(page.html, "fields.name")).toContain('value="Trader &#34;&#60;script&#62;alert(1)&#60;/script&#62;">');
    expect(page.html).not.toContain("<script>");
    expect(fieldOf(page.html, "fields.country")).not.toContain("error");
    expect(await h.service.get(id)).toBeUndefined();
    expect(await outbox(db, id)).toEqual([]);
  });

  it("an emptied required input is the field left out: the validators' required message beside it; an unknown input's key at the top, escaped", async () => {
    const id = await newForm(soleTrader("form-required"));
    const page = await post(id, { "fields.country": "", "fields.<b>x": "1" });
    expect(page.status).toBe(422);
    expect(fieldOf(page.html, "fields.country")).toContain(
      '<span class="error" id="in-fields.country-error">Invalid input: expected string, received undefined</span>',
    );
    expect(page.html).toContain("<p>Unrecognized key: &#34;&#60;b&#62;x&#34;</p>");
    expect(page.html).not.toContain("<b>x");
  });

  it("a posted __proto__ is a key like any other: refused as unknown, no prototype touched", async () => {
    const id = await newForm(soleTrader("form-proto"));
    const page = await post(id, { "fields.__proto__": "x", "stakeholders.0.fields.__proto__": "y" });
    expect(page.status).toBe(422);
    expect(page.html).toContain("<p>Unrecognized key: &#34;__proto__&#34;</p>");
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(await h.service.get(id)).toBeUndefined();
  });

  it("NUL in a typed value is refused beside its field, as the API refuses it", async () => {
    const id = await newForm(soleTrader("form-nul"));
    const page = await post(id, { "stakeholders.0.fields.streetName": "a\u0000b" });
    expect(page.status).toBe(422);
    expect(fieldOf(page.html, "stakeholders.0.fields.streetName")).toContain("Invalid string: must not contain the NUL character (U+0000)");
    expect(await h.service.get(id)).toBeUndefined();
  });

  it("a refused submission is no attempt and no save; the form it re-shows counts as an opening, so the 10th refusal in a row closes the form (403)", async () => {
    const id = await newForm(soleTrader("form-count"));
    await open(id);
    for (let i = 2; i <= 10; i++) {
      expect((await post(id, { "fields.abn": "1" })).status).toBe(422);
      expect(await formRow(id)).toEqual([0, i]);
    }
    const closed = await post(id, { "fields.abn": "1" });
    expect(closed.status).toBe(403);
    expect(closed.html).toContain("opened 10 times without being saved");
    expect(await formRow(id)).toEqual([0, 10]);
    // A valid submission is a save: accepted at the limit, it resets the openings and counts an attempt.
    expect((await post(id, { "fields.abn": "51824753556" })).status).toBe(200);
    expect(await formRow(id)).toEqual([1, 0]);
  });

  it("a value the reduced prefill hid, left blank, keeps the caller's value; a typed one replaces it", async () => {
    const id = await newForm(soleTrader("form-reduced"));
    await h.service.advanceClock(31 * 60_000);
    const page = await open(id);
    expect(fieldOf(page.html, "fields.abn")).toContain('value=""');
    expect(fieldOf(page.html, "fields.name")).toContain('value="Form Trader"');
    expect((await post(id, { "fields.abn": "", "fields.principalPlaceOfBusiness": "9 King St", "stakeholders.0.fields.lastName": "" })).status).toBe(200);
    const v = (await h.service.get(id))!;
    expect(v.request.fields).toEqual({ country: "AUS", name: "Form Trader", principalPlaceOfBusiness: "9 King St", abn: "51824753556" });
    expect((v.request.stakeholders as { fields: unknown }[])[0]!.fields).toEqual({ country: "AUS", firstName: "Ann", lastName: "Lee" });
  });
});

describe("a saved submission sends the webhooks /verify sends for the same data", () => {
  it("the entity's and one per individual stakeholder (parentVerificationTrace, parentUserId), with the edited stakeholder; reopening shows what was saved", async () => {
    const id = await newForm({
      ...soleTrader("form-hooks"),
      stakeholders: [...soleTrader("x").stakeholders, { type: "individual", role: "individuals", fields: { firstName: "Bo", lastName: "Ng" } }],
    });
    const page = await post(id, { "fields.name": "Hooks Trader", "stakeholders.0.fields.lastName": "Lee-Smith" });
    expect(page.status).toBe(200);
    expect(page.html).toContain(`Thank you. Verification ${id} was submitted; a webhook reports its status.`);
    const [entity] = (await outbox(db, id)).map((r) => JSON.parse(String(r.body)));
    const children = await childrenOf(id);
    expect(children.sort()).toEqual([olderStakeholderTrace({ trace: id, attempt: 1 }, 0), olderStakeholderTrace({ trace: id, attempt: 1 }, 1)].sort());
    expect(entity).toMatchObject({ trace: id, name: "Hooks Trader", verificationStatus: "pending", userId: "form-hooks" });
    expect(entity.stakeholders.map((s: { trace: string; name: string }) => [s.trace, s.name])).toEqual([
      [olderStakeholderTrace({ trace: id, attempt: 1 }, 0), "Ann Lee-Smith"],
      [olderStakeholderTrace({ trace: id, attempt: 1 }, 1), "Bo Ng"],
    ]);
    for (const child of children) {
      const rows = await outbox(db, child);
      expect(rows).toHaveLength(1);
      expect(webhookErrors(String(rows[0]!.body))).toEqual([]);
      expect(JSON.parse(String(rows[0]!.body))).toMatchObject({
        trace: child,
        entityType: "individual",
        parentVerificationTrace: id,
        parentVerificationUuid: id,
        parentUserId: "form-hooks",
        verificationStatus: "pending",
      });
    }
    expect(fieldOf((await open(id)).html, "stakeholders.0.fields.lastName")).toContain('value="Lee-Smith"');

    // /verify's path for the same data (its service call: /verify's schema has no sole trader, a forms call kind):
    // the same webhooks, the entity's and one per individual stakeholder, of the same shape.
    const verify = await h.service.verifyOlder(
      older({
        ...soleTrader("verify-hooks", "Hooks Trader"),
        stakeholders: [
          { type: "individual", role: "individuals", fields: { country: "AUS", firstName: "Ann", lastName: "Lee-Smith" } },
          { type: "individual", role: "individuals", fields: { firstName: "Bo", lastName: "Ng" } },
        ],
      }),
    );
    const verifyChildren = await childrenOf(verify.trace);
    expect(verifyChildren).toHaveLength(2);
    const keysOf = async (trace: string) => Object.keys(JSON.parse(String((await outbox(db, trace))[0]!.body))).sort();
    expect(await keysOf(verify.trace)).toEqual(await keysOf(id));
    expect(await keysOf(verifyChildren[0]!)).toEqual(await keysOf(children[0]!));
  });

  it("a new attempt after a rejection: the retry row for the entity, new stakeholder verifications for the new attempt", async () => {
    const id = await newForm(soleTrader("form-retry"));
    expect((await post(id, {})).status).toBe(200);
    await h.service.applyStatus(id, "rejected", {});
    expect((await post(id, { "fields.name": "Retry Trader" })).status).toBe(200);
    expect(await h.service.get(id)).toMatchObject({ verificationStatus: "pending", attempt: 2, name: "Retry Trader" });
    expect((await childrenOf(id)).sort()).toEqual(
      [olderStakeholderTrace({ trace: id, attempt: 1 }, 0), olderStakeholderTrace({ trace: id, attempt: 2 }, 0)].sort(),
    );
  });
});

describe("/verify sends one webhook per individual stakeholder too", () => {
  it("a partnership with two partners: the entity's webhook (its response) and one for each partner, older format, valid", async () => {
    const r = await request(
      h.url,
      "POST",
      "/verify",
      older({
        metadata_userId: "verify-partners",
        type: "partnership",
        fields: {
          country: "NZL",
          name: "Two Partners",
          nzbn: "9429041234567",
          principalPlaceOfBusinessRequired: "1 Queen St",
          partnershipAgreement: "data:application/pdf;base64,JVBERi0xLjQK",
        },
        stakeholders: [
          { type: "individual", role: "partners", fields: { country: "NZL", firstName: "Kim", lastName: "Lee" } },
          { type: "individual", role: "partners", fields: { country: "NZL", firstName: "Sam", lastName: "Ray" } },
        ],
      }),
    );
    expect(r.status).toBe(200);
    const trace = r.body.trace as string;
    expect(r.text).toBe(String((await outbox(db, trace))[0]!.body));
    const children = await childrenOf(trace);
    expect(children).toHaveLength(2);
    for (const child of children) {
      const [row] = await outbox(db, child);
      expect(webhookErrors(String(row!.body))).toEqual([]);
      expect(JSON.parse(String(row!.body))).toMatchObject({ entityType: "individual", parentVerificationTrace: trace, parentUserId: "verify-partners" });
    }
    expect((r.body.stakeholders as { trace: string }[]).map((s) => s.trace).sort()).toEqual(children);
  });
});
