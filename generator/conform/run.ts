// `verispec conform`: the conformance vectors and the behaviour around them, run black-box against a server
// that claims to be the service. Every check reads its expectation from the model (the spec) or from the
// vectors built from it (generator/emit/conformance/); nothing here restates a rule.
import { randomBytes } from "node:crypto";
import { errorTypeOfRole } from "../model/messages.js";
import type { Endpoint, Model } from "../model/types.js";
import { canonicalIssues, requestCases, type RequestCase } from "../emit/conformance/requests.js";
import { lifecycleCases, type LifecycleCase } from "../emit/conformance/lifecycle.js";
import { basicAuth, BudgetExhausted, type Client, ExchangeFailed, type Answer, type Auth } from "./http.js";
import type { Receiver } from "./receiver.js";
import type { CheckResult } from "./report.js";
import type { Runtime } from "./runtime.js";
import { answerChecks, brief, isObj, presenceChecks, schemaResult } from "./judge.js";
import { checkWebhooks } from "./webhooks.js";

export type { Runtime } from "./runtime.js";

/** The server refused the run's own credentials before accepting them once: nothing after it means anything. */
export class CredentialsRefused extends Error {}

/** The first exchange of the run got no answer at all: the server is not there (exit 3). */
export class Unreachable extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

/** After this many exchanges without a usable answer (connection or bound), the run stops: its report is still written. */
export const MAX_EXCHANGE_FAILURES = 5;
/** Answers seen, all 404, over at least two paths: the base URL is wrong, not the server. */
const ALL_404_AFTER = 6;
export const ALL_404 = "every path answered 404: is the base URL right?";

export interface ConformOptions {
  readonly client: Client;
  readonly receiver?: Receiver;
  readonly signingSecret?: string;
  readonly serviceUid: string;
  readonly secret: string;
  readonly webhookWaitMs: number;
  /** Where the follow-up request is served (its path is not shown in the specification, section 4.4). */
  readonly requestedActionsPath?: string;
  /** A run id, written into every created verification's name and userId. */
  readonly runId: string;
  readonly progress?: (done: number, planned: number) => void;
}

/** Written into the name of every verification conform creates: it is test data. */
export const TEST_DATA_MARK = "verispec conform test data";

type Obj = Record<string, unknown>;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

type Created = { trace: string; sent: Obj; vector: string };
type Prepared = { path: string; body: Obj; auth: "basic" | "none" } | { skip: string };

const CREDENTIAL_FIELDS = new Set(["metadata_serviceUid", "metadata_secretKey"]);

/** Whether a vector's change is at `path` (or below it). */
const touches = (v: RequestCase, ...path: (string | number)[]) => v.changed !== undefined && path.every((p, i) => String(v.changed![i]) === String(p));

/** The key that names a stakeholder of the older interface (its shape's `name`, else `firstName`). */
function nameKeyOf(model: Model, type: unknown): string | undefined {
  const props = model.shapes[model.stakeholderTypes.find((t) => t.name === type)?.fields ?? ""]?.properties ?? {};
  return "name" in props ? "name" : "firstName" in props ? "firstName" : undefined;
}

/** The payload with the test-data mark in its names; undefined when a valid case sets a name too short to carry it. */
function markTestData(model: Model, createSchema: string | undefined, vector: RequestCase, payload: Obj): Obj | undefined {
  const marked = clone(payload);
  let unmarked = false;
  const markIn = (holder: Obj, key: string, at: string[]) => {
    if (touches(vector, ...at)) {
      const value = holder[key];
      if (typeof value === "string" && value.length >= TEST_DATA_MARK.length && /^[A-Za-z ]*$/.test(value.slice(0, TEST_DATA_MARK.length)))
        holder[key] = TEST_DATA_MARK + value.slice(TEST_DATA_MARK.length);
      else unmarked = true;
    } else if (key in holder) holder[key] = TEST_DATA_MARK;
  };
  const stakeholders = Array.isArray(marked["stakeholders"]) ? marked["stakeholders"] : [];
  if (createSchema === vector.schema) {
    if (!touches(vector, "name")) marked["name"] = TEST_DATA_MARK;
    else markIn(marked, "name", ["name"]);
    // A stakeholder becomes a verification of its own: its name is marked too (v5 objects are open).
    stakeholders.forEach((stakeholder, index) => {
      const holder = isObj(stakeholder) && isObj(stakeholder["entity"]) ? stakeholder["entity"] : stakeholder;
      if (isObj(holder) && !touches(vector, "stakeholders", index)) holder["name"] = TEST_DATA_MARK;
    });
  } else if (isObj(marked["fields"])) {
    markIn(marked["fields"], "name", ["fields", "name"]);
    markIn(marked["fields"], "firstName", ["fields", "firstName"]);
    stakeholders.forEach((stakeholder, index) => {
      const key = isObj(stakeholder) ? nameKeyOf(model, stakeholder["type"]) : undefined;
      if (key && isObj(stakeholder) && isObj(stakeholder["fields"]) && !touches(vector, "stakeholders", index, "fields", key))
        stakeholder["fields"][key] = TEST_DATA_MARK;
    });
  }
  return unmarked && vector.valid ? undefined : marked;
}

/** Of each operation's vectors, the first of each kind (valid, or each set of error codes): what names a deviation first. */
function coreVectors(vectors: readonly RequestCase[], operationId: string): RequestCase[] {
  const seen = new Set<string>();
  return vectors.filter((vector) => {
    if (vector.operation !== operationId) return false;
    const key = vector.valid ? "valid" : vector.errors.map((e) => e.code).join(",");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface ConformOutcome {
  readonly results: CheckResult[];
  /** Why the run stopped before its end (a summary line), if it did. */
  readonly stopped?: string;
}

export async function runConform(model: Model, runtime: Runtime, options: ConformOptions): Promise<ConformOutcome> {
  const run = new ConformRun(model, runtime, options);
  await run.plan();
  await checkWebhooks(
    model,
    runtime,
    options,
    run.created.map((x) => x.trace),
    run.results,
  );
  run.tick();
  return { results: run.results, ...(run.stopped === undefined ? {} : { stopped: run.stopped }) };
}

/** One run of the checks: the results so far, the request budget, and what the run created. */
class ConformRun {
  readonly results: CheckResult[] = [];
  readonly created: Created[] = [];
  private readonly older: { trace?: string; userId?: string } = {};
  private readonly done = new Set<string>();
  private budgetHit = false;
  /** Why the run stopped early, if it did. */
  stopped: string | undefined;
  private exchangeFailures = 0;
  private basicAccepted = false;
  private readonly paths = new Set<string>();
  private readonly create: Endpoint;
  private readonly get: Endpoint;
  private readonly validation: Model["errorTypes"][number];
  private readonly createdMessage: string | undefined;
  private readonly vectors: RequestCase[];
  private readonly lifecycle: LifecycleCase[];
  private readonly planned: number;

  constructor(
    private readonly model: Model,
    private readonly runtime: Runtime,
    private readonly options: ConformOptions,
  ) {
    this.create = this.endpoint("createVerification");
    this.get = this.endpoint("getVerification");
    this.validation = errorTypeOfRole(model, "validation");
    this.createdMessage = model.shapes[this.create.responses["200"]!]?.properties?.["message"]?.examples?.[0] as string | undefined;
    this.vectors = requestCases(model);
    this.lifecycle = lifecycleCases(model);
    this.planned = this.vectors.length + this.lifecycle.length + 10;
  }

  /** What names a deviation first (under a small budget), then everything else. */
  async plan(): Promise<void> {
    const control = await this.send("control:detect", "control", "POST", "/_sandbox/clock", { advanceMs: 0 });
    const hasControl = control !== undefined && control.status === 200 && isObj(control.json) && typeof control.json["now"] === "number";
    const olderOps = this.model.endpoints.filter((e) => e.auth === "body" && e.request).map((e) => e.operationId);
    await this.runVectors(coreVectors(this.vectors, this.create.operationId));
    if (this.created[0]) await this.checkGet(this.created[0]);
    await this.authProbes();
    await this.attemptCycle(hasControl);
    this.tick();
    for (const op of olderOps) await this.runVectors(coreVectors(this.vectors, op));
    await this.runVectors(this.vectors);
    for (const x of this.created.slice(1)) await this.checkGet(x);
  }

  tick(): void {
    this.options.progress?.(this.results.length, Math.max(this.planned, this.results.length));
  }

  private endpoint(id: string): Endpoint {
    return this.model.endpoints.find((e) => e.operationId === id)!;
  }

  private budgetReason(): string {
    return `request budget reached (--max-requests ${this.options.client.options.maxRequests})`;
  }

  private held(id: string, operation: string, expected: string): void {
    this.results.push({ id, operation, outcome: "held", expected });
  }

  private failed(id: string, operation: string, expected: string, got: string): void {
    this.results.push({ id, operation, outcome: "failed", expected, got });
  }

  private skipped(id: string, operation: string, reason: string): void {
    this.results.push({ id, operation, outcome: "skipped", reason });
  }

  private check(id: string, operation: string, ok: boolean, expected: string, got: string): void {
    if (ok) this.held(id, operation, expected);
    else this.failed(id, operation, expected, got);
  }

  /**
   * Sends, or records the check as skipped once the budget is spent or the run stopped. An exchange without
   * a usable answer is a failed check (the run goes on, up to MAX_EXCHANGE_FAILURES); only the run's very
   * first exchange getting none says the server is unreachable. `probe`: an authentication probe, whose
   * refusal is the point.
   */
  private async send(
    id: string,
    operation: string,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    auth: Auth = "basic",
    probe = false,
  ): Promise<Answer | undefined> {
    if (this.budgetHit) return void this.skipped(id, operation, this.budgetReason());
    if (this.stopped !== undefined) return void this.skipped(id, operation, `the run stopped: ${this.stopped}`);
    let answer: Answer;
    try {
      answer = await this.options.client.send(method, path, body, auth);
    } catch (error) {
      if (error instanceof BudgetExhausted) {
        this.budgetHit = true;
        return void this.skipped(id, operation, this.budgetReason());
      }
      if (!(error instanceof ExchangeFailed)) throw error;
      if (!error.connected && this.options.client.answered === 0) throw new Unreachable(`${method} ${path}: ${error.why}`);
      this.failed(id, operation, `an answer to ${method} ${path}`, error.why);
      if (++this.exchangeFailures >= MAX_EXCHANGE_FAILURES)
        this.stopped = `stopped after ${this.exchangeFailures} exchanges without a usable answer (the last: ${error.why})`;
      return undefined;
    }
    this.paths.add(path.split("?")[0]!);
    if (this.options.client.answered >= ALL_404_AFTER && this.paths.size >= 2 && this.options.client.statuses.get(404) === this.options.client.answered) {
      this.stopped = ALL_404;
      this.failed("run:base-url", "run", "answers from the service's paths", ALL_404);
    }
    if (operation === "control" || probe) return answer;
    if (auth === "basic" && (answer.status === 401 || answer.status === 403) && !this.basicAccepted) {
      // Refused before ever accepted: the run's own credentials are wrong, and every later check would say so.
      throw new CredentialsRefused(`${method} ${path}: the server refused the credentials (HTTP ${answer.status})`);
    }
    if (auth === "basic" && answer.status !== 401 && answer.status !== 403) this.basicAccepted = true;
    this.answerChecks(id, operation, answer);
    return answer;
  }

  /** What every answer of an operation must be (judge.ts), and the presence of its fields. */
  private answerChecks(id: string, operation: string, answer: Answer): void {
    const endpoint = this.endpoint(operation);
    if (!endpoint) return;
    this.results.push(...answerChecks(endpoint, this.model.bodyMediaType, id, answer));
    const schema = endpoint.responses[String(answer.status)] ?? (answer.status >= 400 && endpoint.auth === "basic" ? endpoint.errorBody : undefined);
    if (schema && this.runtime.schemaOf) this.results.push(...presenceChecks(this.runtime.schemaOf, id, operation, schema, answer.json));
  }

  private schemaCheck(id: string, operation: string, schema: string, body: unknown): void {
    this.results.push(schemaResult(this.runtime, id, operation, schema, body));
  }

  /** The payload as sent: test data marked, credentials and real lookup keys filled in. */
  private prepare(vector: RequestCase): Prepared {
    const endpoint = this.endpoint(vector.operation);
    const path = endpoint.path ?? (endpoint.operationId === "submitRequestedActions" ? this.options.requestedActionsPath : undefined);
    if (path === undefined)
      return {
        skip: `${endpoint.operationId}: its path is not shown (the service's specification, section ${endpoint.source}); give --requested-actions-path to run it`,
      };
    if (vector.changed && CREDENTIAL_FIELDS.has(String(vector.changed[0])))
      return { skip: "the answer to failed authentication is not shown (the service's specification, section 7)" };
    const body = markTestData(this.model, this.create.request, vector, vector.payload as Obj);
    if (body === undefined) return { skip: "a valid case that sets the name itself, too short to carry the test-data mark, is not sent" };
    if (endpoint.auth !== "body") return { path, body, auth: endpoint.auth === "basic" ? "basic" : "none" };
    for (const [k, value] of [
      ["metadata_serviceUid", this.options.serviceUid],
      ["metadata_secretKey", this.options.secret],
    ] as const)
      if (k in body) body[k] = value;
    if (vector.valid && endpoint.operationId === "getVerificationStatus") {
      for (const key of ["trace", "userId"] as const) {
        if (!(key in body)) continue;
        if (this.older[key] === undefined) return { skip: `no verification of this run to look up by ${key}` };
        body[key] = this.older[key];
      }
    }
    if (vector.valid && endpoint.operationId === "submitRequestedActions") return { skip: "a valid follow-up needs a verification in status info" };
    if (vector.valid && "metadata_userId" in body) body["metadata_userId"] = `${this.options.runId}-${this.created.length + this.results.length}`;
    return { path, body, auth: "none" };
  }

  private async runVectors(list: readonly RequestCase[]): Promise<void> {
    for (const v of list) {
      await this.runVector(v);
      this.tick();
    }
  }

  /** One request vector: status, body schema, and the exact issues. */
  private async runVector(vector: RequestCase): Promise<void> {
    if (this.done.has(vector.id)) return;
    this.done.add(vector.id);
    const id = `vector:${vector.id}`;
    const endpoint = this.endpoint(vector.operation);
    const prepared = this.prepare(vector);
    if ("skip" in prepared) return void this.skipped(id, endpoint.operationId, prepared.skip);
    const answer = await this.send(id, endpoint.operationId, endpoint.method, prepared.path, prepared.body, prepared.auth);
    if (!answer) return;
    if (vector.valid) this.checkAccepted(id, vector, endpoint, prepared.body, answer);
    else this.checkRefused(id, vector, endpoint, answer);
  }

  private checkAccepted(id: string, vector: RequestCase, endpoint: Endpoint, sent: Obj, answer: Answer): void {
    this.check(
      `${id}#status`,
      endpoint.operationId,
      answer.status === 200,
      "HTTP 200 for a valid payload",
      `HTTP ${answer.status}: ${brief(answer.text, 200)}`,
    );
    if (answer.status !== 200) return;
    this.schemaCheck(`${id}#body`, endpoint.operationId, endpoint.responses["200"]!, answer.json);
    if (endpoint === this.create) {
      const body = isObj(answer.json) ? answer.json : {};
      if (this.createdMessage !== undefined)
        this.check(
          `${id}#message`,
          endpoint.operationId,
          body["message"] === this.createdMessage,
          `message ${JSON.stringify(this.createdMessage)}`,
          brief(body["message"]),
        );
      this.check(
        `${id}#envelope`,
        endpoint.operationId,
        body["status"] === "success" && body["data"] === null && body["error"] === null,
        "status success, data null, error null",
        `status ${brief(body["status"])}, data ${brief(body["data"])}, error ${brief(body["error"])}`,
      );
      this.check(
        `${id}#trace`,
        endpoint.operationId,
        typeof body["trace"] === "string" && body["trace"] !== "",
        "a trace naming the new verification",
        brief(body["trace"]),
      );
      if (typeof body["trace"] === "string" && body["trace"] !== "") this.created.push({ trace: body["trace"], sent, vector: vector.id });
    }
    if (endpoint.operationId === "verify" && isObj(answer.json)) {
      if (typeof answer.json["trace"] === "string") this.older.trace ??= answer.json["trace"];
      if (typeof sent["metadata_userId"] === "string") this.older.userId ??= sent["metadata_userId"];
    }
  }

  private checkRefused(id: string, vector: RequestCase, endpoint: Endpoint, answer: Answer): void {
    const validation = this.validation;
    const expected = `HTTP ${validation.httpStatus} ${validation.type} with ${JSON.stringify(vector.errors)}`;
    this.check(
      `${id}#status`,
      endpoint.operationId,
      answer.status === validation.httpStatus,
      `HTTP ${validation.httpStatus} for an invalid payload`,
      `HTTP ${answer.status}: ${brief(answer.text, 200)}`,
    );
    if (answer.status !== validation.httpStatus) return;
    const body = isObj(answer.json) ? answer.json : {};
    let details: unknown;
    if (endpoint.auth === "basic") {
      this.schemaCheck(`${id}#body`, endpoint.operationId, endpoint.errorBody, answer.json);
      const error = isObj(body["error"]) ? body["error"] : {};
      this.check(
        `${id}#type`,
        endpoint.operationId,
        error["type"] === validation.type && (validation.message === undefined || body["message"] === validation.message),
        `error.type ${validation.type}, message ${JSON.stringify(validation.message)}`,
        `error.type ${brief(error["type"])}, message ${brief(body["message"])}`,
      );
      details = error["details"];
    } else {
      // The older error body's shape is not shown (section 7): its issues are compared where it lists them.
      details = body["details"];
      if (!Array.isArray(details))
        return void this.skipped(
          `${id}#errors`,
          endpoint.operationId,
          "the older interface's error body is not shown (the service's specification, section 7) and this one lists no details",
        );
    }
    const got = Array.isArray(details) ? canonicalIssues(details as RequestCase["errors"]) : details;
    this.check(`${id}#errors`, endpoint.operationId, equal(got, vector.errors), expected, brief(got, 600));
  }

  /**
   * Wrong, missing and malformed credentials on each interface (HTTP Basic on /v5, metadata_* on the older
   * one): each must be refused and create nothing. The refusal's status and body are not shown (section 7),
   * so only "not a 2xx" and "nothing created" are checked.
   */
  private async authProbes(): Promise<void> {
    const wrong = `verispec-conform-wrong-${randomBytes(6).toString("hex")}`;
    const v5Probes: [string, Auth][] = [
      ["wrong-secret", { authorization: basicAuth(this.options.serviceUid, wrong) }],
      ["missing", "none"],
      ["malformed", { authorization: "Basic %not-base64%" }],
    ];
    const valid = this.vectors.find((v) => v.schema === this.create.request && v.valid);
    const prepared = valid && this.prepare(valid);
    for (const [kind, auth] of v5Probes) {
      if (!prepared || "skip" in prepared) break;
      const id = `auth:v5/${kind}`;
      const answer = await this.send(
        id,
        this.create.operationId,
        "POST",
        prepared.path,
        { ...prepared.body, userId: `${this.options.runId}-${kind}` },
        auth,
        true,
      );
      if (!answer) continue;
      const trace = isObj(answer.json) && typeof answer.json["trace"] === "string" ? answer.json["trace"] : undefined;
      const created = trace !== undefined && (await this.detailStatus(`${id}#created`, trace)) === 200;
      this.refusal(id, this.create.operationId, answer, created);
    }
    const first = this.created[0];
    if (first) {
      const answer = await this.send(
        "auth:v5/get/wrong-secret",
        this.get.operationId,
        "GET",
        this.get.path!.replace("{trace}", encodeURIComponent(first.trace)),
        undefined,
        v5Probes[0]![1],
        true,
      );
      if (answer) this.refusal("auth:v5/get/wrong-secret", this.get.operationId, answer, false);
    }
    await this.olderAuthProbes(wrong);
  }

  private async olderAuthProbes(wrong: string): Promise<void> {
    const older = this.vectors.find((v) => v.operation === "verify" && v.valid && this.endpoint(v.operation).auth === "body");
    const prepared = older && this.prepare(older);
    if (!prepared || "skip" in prepared) return;
    const kinds: [string, (body: Obj) => void][] = [
      ["wrong-secret", (b) => (b["metadata_secretKey"] = wrong)],
      ["missing", (b) => (delete b["metadata_serviceUid"], delete b["metadata_secretKey"])],
      ["malformed", (b) => (b["metadata_secretKey"] = 42)],
    ];
    const lookup = this.endpoint("getVerificationStatus");
    for (const [kind, spoil] of kinds) {
      const id = `auth:${older!.operation}/${kind}`;
      const body = { ...clone(prepared.body), metadata_userId: `${this.options.runId}-${kind}` };
      spoil(body);
      const answer = await this.send(id, older!.operation, "POST", prepared.path, body, "none", true);
      if (!answer) continue;
      let created = isObj(answer.json) && typeof answer.json["trace"] === "string";
      if (!created && lookup?.path) {
        const found = await this.send(
          `${id}#created`,
          lookup.operationId,
          "POST",
          lookup.path,
          {
            metadata_version: prepared.body["metadata_version"],
            metadata_serviceUid: this.options.serviceUid,
            metadata_secretKey: this.options.secret,
            userId: body["metadata_userId"],
          },
          "none",
        );
        created = found?.status === 200 && isObj(found.json) && typeof found.json["trace"] === "string";
      }
      this.refusal(id, older!.operation, answer, created);
    }
  }

  /** A probe's answer: not a 2xx success, and nothing created. */
  private refusal(id: string, operation: string, answer: Answer, created: boolean): void {
    const ok = (answer.status < 200 || answer.status > 299) && !created;
    this.check(
      id,
      operation,
      ok,
      "not a 2xx success, and nothing created (the refusal's status and body are not shown: the service's specification, section 7)",
      `HTTP ${answer.status}${created ? ", and the verification was created" : ""}: ${brief(answer.text, 160)}`,
    );
  }

  private async detailStatus(id: string, trace: string): Promise<number | undefined> {
    return (await this.send(id, this.get.operationId, "GET", this.get.path!.replace("{trace}", encodeURIComponent(trace))))?.status;
  }

  /** GET by trace: the detail of a created verification matches what was sent. */
  private async checkGet(created: Created): Promise<void> {
    const get = this.get;
    const id = `get:${created.vector}`;
    const answer = await this.send(id, get.operationId, "GET", get.path!.replace("{trace}", encodeURIComponent(created.trace)));
    if (!answer) return;
    this.check(
      `${id}#status`,
      get.operationId,
      answer.status === 200,
      "HTTP 200 for a created verification",
      `HTTP ${answer.status}: ${brief(answer.text, 200)}`,
    );
    if (answer.status !== 200) return;
    this.schemaCheck(`${id}#body`, get.operationId, get.responses["200"]!, answer.json);
    const data = isObj(answer.json) && isObj(answer.json["data"]) ? answer.json["data"] : {};
    this.check(`${id}#trace`, get.operationId, data["trace"] === created.trace, `data.trace ${created.trace}`, brief(data["trace"]));
    const detail = this.model.shapes[get.responses["200"]!]?.properties?.["data"];
    const keys = Object.keys(this.model.shapes[detail?.ref ?? ""]?.properties ?? {}).filter((k) => k in created.sent && k !== "trace");
    const differ = keys.filter((k) => !equal(data[k], created.sent[k]));
    this.check(
      `${id}#matches-request`,
      get.operationId,
      differ.length === 0,
      `${keys.join(", ")} as sent`,
      differ.map((k) => `${k}: sent ${brief(created.sent[k], 80)}, got ${brief(data[k], 80)}`).join("; "),
    );
  }

  /** The attempt cycle, driven through a control API where the server has one. */
  private async attemptCycle(hasControl: boolean): Promise<void> {
    const create = this.create;
    if (!hasControl) {
      for (const l of this.lifecycle.filter((l) => l.event === "resubmit" && l.given.type === "individual"))
        this.skipped(`lifecycle:${l.id}`, create.operationId, "the server offers no way to drive a verification's status (no control API found at /_sandbox)");
      return;
    }
    const base: Obj = {
      ...clone(this.vectors.find((v) => v.schema === create.request && v.valid)!.payload as Obj),
      name: TEST_DATA_MARK,
      type: "individual",
      subType: "data",
      userId: `${this.options.runId}-attempts`,
    };
    delete base["documents"];
    delete base["stakeholders"];
    const first = await this.send("lifecycle:submit/new", create.operationId, "POST", create.path!, base);
    if (!first) return;
    const trace = isObj(first.json) && typeof first.json["trace"] === "string" ? first.json["trace"] : "";
    if (first.status !== 200 || !trace)
      return void this.failed(
        "lifecycle:submit/new",
        create.operationId,
        "HTTP 200 and a trace for a new individual (subType data)",
        `HTTP ${first.status}: ${brief(first.text, 200)}`,
      );
    this.created.push({ trace, sent: base, vector: "lifecycle-individual" });
    const start = await this.detail("lifecycle:submit/new#state", trace);
    if (this.budgetHit) return;
    const submit = this.lifecycle.find((l) => l.event === "submit")!;
    if (submit.expect.outcome === "transition")
      this.check(
        `lifecycle:${submit.id}`,
        create.operationId,
        equal(lifecycleState(start), submit.expect.state),
        brief(submit.expect.state),
        brief(lifecycleState(start)),
      );
    const cap = start?.["maxAttempts"];
    if (typeof cap !== "number")
      return void this.skipped("lifecycle:resubmit", create.operationId, "the created individual carries no maxAttempts: its rejections are final");
    await this.resubmitUntilLocked(trace, base, start?.["attempt"] as number, cap);
  }

  /** Each rejection followed by a resubmission, up to the cap and once past it. */
  private async resubmitUntilLocked(trace: string, base: Obj, startAttempt: number, cap: number): Promise<void> {
    const vector = (prefix: string) => this.lifecycle.find((l) => l.id.startsWith(prefix));
    const inFlight = vector("resubmit/pending/in-flight");
    if (inFlight)
      await this.resubmit(trace, base, {
        ...inFlight,
        expect: inFlight.expect.outcome === "error" ? { ...inFlight.expect, state: { ...inFlight.expect.state, attempt: startAttempt } } : inFlight.expect,
      });
    for (let attempt = this.model.attempts.startsAt; attempt <= cap; attempt++) {
      const rejectedCase = vector(`resubmit/rejected/attempt-${attempt}-of-${cap}`);
      if (!rejectedCase)
        return void this.skipped(
          "lifecycle:resubmit",
          this.create.operationId,
          `the server's cap (${cap}) is not the spec's observed default; no vector for it`,
        );
      const control = await this.send(
        `lifecycle:${rejectedCase.id}#control`,
        "control",
        "POST",
        `/_sandbox/verifications/${encodeURIComponent(trace)}/status`,
        {
          verificationStatus: "rejected",
        },
      );
      if (control?.status !== 200)
        return this.budgetHit
          ? void this.skipped(`lifecycle:${rejectedCase.id}`, this.create.operationId, this.budgetReason())
          : void this.failed(`lifecycle:${rejectedCase.id}#control`, "control", "the control API sets rejected", "it refused");
      await this.resubmit(trace, base, rejectedCase);
    }
    const again = vector("resubmit/rejected/already-locked-at-cap");
    if (again) await this.resubmit(trace, base, again);
  }

  private async detail(id: string, trace: string): Promise<Obj | undefined> {
    const answer = await this.send(id, this.get.operationId, "GET", this.get.path!.replace("{trace}", encodeURIComponent(trace)));
    return answer && isObj(answer.json) && isObj(answer.json["data"]) ? answer.json["data"] : undefined;
  }

  /** A resubmission against a vector: its answer, then the state the server reports. */
  private async resubmit(trace: string, base: Obj, lifecycleCase: LifecycleCase): Promise<void> {
    const create = this.create;
    const id = `lifecycle:${lifecycleCase.id}`;
    const answer = await this.send(id, create.operationId, "POST", create.path!, base);
    if (!answer) return;
    const after = lifecycleState(await this.detail(`${id}#state`, trace));
    if (this.budgetHit) return void this.skipped(id, create.operationId, this.budgetReason());
    const expected = lifecycleCase.expect;
    if (expected.outcome === "error") {
      const type = isObj(answer.json) && isObj(answer.json["error"]) ? answer.json["error"]["type"] : undefined;
      this.check(
        id,
        create.operationId,
        answer.status === expected.httpStatus && type === expected.error && equal(after, expected.state),
        `HTTP ${expected.httpStatus} ${expected.error}, then ${brief(expected.state)}`,
        `HTTP ${answer.status} ${brief(type)}, then ${brief(after)}`,
      );
    } else if (expected.outcome === "transition") {
      this.check(
        id,
        create.operationId,
        answer.status === 200 && equal(after, expected.state),
        `HTTP 200, then ${brief(expected.state)}`,
        `HTTP ${answer.status}, then ${brief(after)}`,
      );
    }
  }
}

/** The part of a verification's detail the life-cycle vectors state. */
const lifecycleState = (detail: Obj | undefined) => ({
  verificationStatus: detail?.["verificationStatus"] ?? null,
  submissionStatus: detail?.["submissionStatus"] ?? null,
  attempt: detail?.["attempt"] ?? null,
});

export type { Endpoint };
