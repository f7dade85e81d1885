// The sandbox's handlers, one a route: each parses what the route carries, calls the service and shapes
// the answer. The HTTP concerns (authentication, bodies, limits, errors) are server.ts's; the behaviour
// is service.ts's. Each handler acts for the account the caller's credentials picked (its service, its
// clock, its rows); the hosted form, opened without credentials, for the account whose form it is.
import { choice, successStatus } from "./binding.js";
import type { Account, Exchange, HttpKit, ServerOptions } from "./exchange.js";
import { hostedForm } from "./form.js";
import { sandboxPage } from "./page.js";
import { ownRoute, specRoute, type Route } from "./routes.js";
import { tenantOfForm } from "./service/reads.js";

/** Verifications on one page of /_sandbox (and deliveries when unfiltered). */
const PAGE_ROWS = 100;
const HTML = "text/html; charset=utf-8";

export type Handler = (exchange: Exchange) => Promise<void>;

export class SandboxHandlers {
  /** Each account's hosted forms, by account name. */
  private readonly forms: ReadonlyMap<string, ReturnType<typeof hostedForm>>;

  constructor(
    private readonly options: ServerOptions,
    private readonly http: HttpKit,
    issuesOf: Parameters<typeof hostedForm>[2],
  ) {
    // The hosted form checks a submission with the very check of the API (same validators, same messages).
    this.forms = new Map(options.accounts.map((a) => [a.name, hostedForm(options.binding, a.service, issuesOf)]));
  }

  /** The caller's account (every route but the hosted form's checks credentials before its handler runs). */
  private account(exchange: Exchange): Account {
    if (!exchange.account) throw new Error("sandbox bug: a route with credentials reached its handler without an account");
    return exchange.account;
  }

  /**
   * The forms of the account that created form `id`. A form no account of this sandbox holds is looked up
   * as the first account's, which finds nothing: the very answer of an unknown id.
   */
  private async formsOf(id: string): Promise<ReturnType<typeof hostedForm>> {
    const tenant = await tenantOfForm(this.options.db, id);
    // The form's lifetime is by its account's clock as stored now (another instance may have moved it).
    await this.options.accounts.find((a) => a.name === tenant)?.service.refreshClock();
    return this.forms.get(tenant ?? "") ?? this.forms.get(this.options.accounts[0]!.name)!;
  }

  /** The route table: spec/endpoints.yaml's routes, then the hosted form and the control API, matched in order. */
  routes(): Route<Handler>[] {
    const binding = this.options.binding;
    const uuid = { id: "[0-9a-f-]{36}" };
    return [
      specRoute(binding, "createVerification", this.createVerification),
      specRoute(binding, "getVerification", this.getVerification),
      specRoute(binding, "verify", this.verify),
      specRoute(binding, "idForm", this.idForm),
      specRoute(binding, "getVerificationStatus", this.verificationStatus),
      specRoute(binding, "submitRequestedActions", this.requestedActions, this.options.requestedActionsPath),
      ownRoute("GET", "/_form/{id}", "none", this.openForm, uuid, "page"),
      ownRoute("POST", "/_form/{id}", "none", this.submitForm, uuid, "page"),
      ownRoute("GET", "/_sandbox", "basic", this.page),
      ownRoute("GET", "/_sandbox/state", "basic", this.state),
      ownRoute("POST", "/_sandbox/verifications/{trace}/status", "basic", this.setStatus),
      ownRoute("POST", "/_sandbox/clock", "basic", this.advanceClock),
      ownRoute("GET", "/_sandbox/deliveries", "basic", this.deliveries),
      ownRoute("POST", "/_sandbox/deliveries/{deliveryId}/resend", "basic", this.resend),
      ownRoute("GET", "/_sandbox/verifications", "basic", this.verifications),
    ];
  }

  private request(operationId: string): string {
    return this.options.binding.spec.endpoints[operationId]!.request!;
  }

  /** The status of an operation's answer, as the specification shows it (binding.ts successStatus). */
  private success(operationId: string): number {
    return successStatus(this.options.binding.spec, operationId);
  }

  private json(exchange: Exchange, status: number, value: unknown): void {
    this.http.send(exchange.res, status, JSON.stringify(value));
  }

  // ---- v5 ----

  readonly createVerification: Handler = async (exchange) => {
    const body = await this.http.readJson(exchange.req);
    this.http.validate(this.request("createVerification"), body);
    const { trace } = await this.account(exchange).service.createV5(body);
    const status = this.success("createVerification");
    this.json(exchange, status, this.http.envelope(exchange.ctx, exchange.path, status, { message: this.http.spec.createdMessage, trace }));
  };

  readonly getVerification: Handler = async (exchange) => {
    const trace = exchange.captures[0]!;
    this.http.params({ trace });
    const { service } = this.account(exchange);
    const v = await service.get(trace);
    if (v?.api !== "v5") throw Object.assign(service.notFound("trace", { trace }), { trace });
    const message = choice<string>(this.http.spec, "getMessage", "message");
    const status = this.success("getVerification");
    this.json(exchange, status, this.http.envelope(exchange.ctx, exchange.path, status, { message, trace, pathParams: { trace }, data: service.detail(v) }));
  };

  // ---- older (the body is read and its credentials checked before these run) ----

  readonly verify: Handler = async (exchange) => {
    this.http.validate(this.request("verify"), exchange.body);
    this.http.send(exchange.res, this.success("verify"), (await this.account(exchange).service.verifyOlder(exchange.body)).text);
  };

  readonly idForm: Handler = async (exchange) => {
    this.http.validate(this.request("idForm"), exchange.body);
    const id = await this.account(exchange).service.createForm(exchange.body);
    this.json(exchange, this.success("idForm"), {
      source: choice<string>(this.http.spec, "formSource", "source"),
      serviceLink: `${this.options.baseUrl()}/_form/${id}`,
      verificationUuid: id,
      status: this.http.spec.formCreatedStatus,
    });
  };

  readonly verificationStatus: Handler = async (exchange) => {
    this.http.validate(this.request("getVerificationStatus"), exchange.body);
    const { service } = this.account(exchange);
    const text = await service.latestOlder({ trace: exchange.body.trace as string | undefined, userId: exchange.body.userId as string | undefined });
    if (text === undefined) throw service.notFound("traceOrUserId");
    this.http.send(exchange.res, this.success("getVerificationStatus"), text);
  };

  readonly requestedActions: Handler = async (exchange) => {
    this.http.validate(this.request("submitRequestedActions"), exchange.body);
    const text = await this.account(exchange).service.followUp(String(exchange.body.verificationUuid));
    this.http.send(exchange.res, this.success("submitRequestedActions"), text);
  };

  // ---- the hosted form (no credentials: the caller's customer opens it) ----

  readonly openForm: Handler = async (exchange) => {
    const page = await (await this.formsOf(exchange.captures[0]!)).open(exchange.captures[0]!);
    this.http.send(exchange.res, page.status, page.html, HTML);
  };

  readonly submitForm: Handler = async (exchange) => {
    const forms = await this.formsOf(exchange.captures[0]!);
    const page = await forms.submit(exchange.captures[0]!, await this.http.readForm(exchange.req));
    this.http.send(exchange.res, page.status, page.html, HTML);
  };

  // ---- the sandbox's own control API and page ----

  readonly page: Handler = async (exchange) =>
    this.http.send(exchange.res, 200, sandboxPage(choice<number>(this.http.spec, "authFailure", "httpStatus")), HTML);

  readonly state: Handler = async (exchange) => {
    // One page of each (browse.ts): the filter and cursor apply to the verifications; deliveries are of those.
    const browse = this.http.browseOf(exchange.url, PAGE_ROWS);
    const { service, reads, clock } = this.account(exchange);
    const { verifications, nextCursor, deliveries } = await reads.statePage(browse, PAGE_ROWS, (v) => service.detail(v));
    this.json(exchange, 200, { now: clock.now(), clockOffsetMs: clock.offset, verifications, nextCursor, deliveries });
  };

  readonly setStatus: Handler = async (exchange) => {
    const trace = exchange.captures[0]!;
    const body = await this.http.readObject(exchange.req);
    const to = body.verificationStatus;
    if (typeof to !== "string") throw this.http.refuse("verificationStatus");
    const { maxAttempts, trigger } = body;
    const cap = choice<number>(this.http.spec, "controlApi", "maxAttempts");
    if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && (maxAttempts as number) >= 1 && (maxAttempts as number) <= cap))
      throw this.http.refuse("maxAttempts", cap);
    if (trigger !== undefined && typeof trigger !== "string") throw this.http.refuse("trigger");
    this.http.params({ trace, verificationStatus: to, trigger: trigger as string | undefined });
    const { service } = this.account(exchange);
    const v = await service.applyStatus(trace, to, { maxAttempts: maxAttempts as number | undefined, trigger: trigger as string | undefined });
    this.json(exchange, 200, service.detail(v));
  };

  readonly advanceClock: Handler = async (exchange) => {
    const body = await this.http.readObject(exchange.req);
    const { service, clock } = this.account(exchange);
    const room = () => choice<number>(this.http.spec, "controlApi", "maxClockOffsetMs") - clock.offset;
    const ms = body.advanceMs;
    if (!(Number.isInteger(ms) && (ms as number) >= 0 && (ms as number) <= room())) throw this.http.refuse("advanceMs", room());
    // In the store, in one statement: another instance advancing the same clock meanwhile counts too.
    if (!(await service.advanceClock(ms as number))) {
      await service.refreshClock();
      throw this.http.refuse("advanceMs", room());
    }
    this.options.wakeProcessing();
    this.json(exchange, 200, { now: clock.now(), clockOffsetMs: clock.offset });
  };

  readonly deliveries: Handler = async (exchange) => {
    const page = await this.account(exchange).reads.deliveries(this.http.browseOf(exchange.url));
    this.json(exchange, 200, { deliveries: page.items, nextCursor: page.nextCursor });
  };

  readonly resend: Handler = async (exchange) => {
    const deliveryId = exchange.captures[0]!;
    this.http.params({ deliveryId });
    const { service, reads } = this.account(exchange);
    const resent = await reads.resend(deliveryId);
    if (resent < 0) throw service.notFound("delivery");
    this.options.wakeProcessing();
    this.json(exchange, 200, { resent });
  };

  readonly verifications: Handler = async (exchange) => {
    const { service } = this.account(exchange);
    this.json(exchange, 200, { verifications: (await service.list()).map((v) => service.detail(v)) });
  };
}
