// MSW 2 request handlers that answer as the service does, for frontend and unit tests: every operation of
// both interfaces (spec/endpoints.yaml), HTTP Basic and the older endpoints' body credentials checked, the
// request validated with the service's 422 issues, and the sandbox's own behaviour (service.ts: the life
// cycle of templates/lifecycle/, attempts, 474 and 475, the test values of spec/sandbox.yaml) over a store
// in memory. The HTTP shapes are those of the sandbox's server.ts, on the Fetch API (no Node built-in), so
// the handlers run under msw/node and in a browser's service worker alike. `msw` is the caller's (a peer).
import { http, type HttpHandler } from "msw";
import { choice, type SandboxBinding, successStatus } from "../sandbox/binding.js";
import { SandboxClock } from "../sandbox/clock.js";
import { refusedAs } from "../sandbox/exchange.js";
import { pathPattern } from "../sandbox/routes.js";
import { SandboxService, type Verification } from "../sandbox/service.js";
import { memoryStore } from "../sandbox/store/memory.js";
import { httpKit, type Handle, type Kit, type MockRoute } from "./kit.js";

export interface MockOptions {
  /** The credentials the handlers accept (HTTP Basic on /v5, metadata_serviceUid/metadata_secretKey on the older endpoints). */
  readonly serviceUid?: string;
  readonly secret?: string;
  /** Only requests to this origin (`https://api.example.com`); default any origin. */
  readonly baseUrl?: string;
  /** The clock's time in ms (default Date.now); the control API and `advance` move it forward from there. */
  readonly now?: () => number;
  /** New UUIDs: traces, submission ids, form ids (default: 00000000-0000-4000-8000-000000000001, ...; `reset` starts again). */
  readonly newId?: () => string;
  /** Milliseconds until a submitted verification completes (default 1000), or "manual": only the control API moves it. */
  readonly processingMs?: number | "manual";
  /** The key of the older payloads' body signature (section 6.4); default a fixed test value. */
  readonly signingSecret?: string;
}

/** A verification as the handlers hold it: its detail (as GET answers it), interface, userId and history. */
export type MockVerification = Record<string, unknown> & {
  readonly trace: string;
  readonly api: "v5" | "older";
  readonly userId: string | null;
  readonly history: readonly Record<string, unknown>[];
};

export interface MockState {
  readonly now: number;
  /** Oldest first. */
  readonly verifications: readonly MockVerification[];
  /** Every webhook the service would have sent, oldest first. */
  readonly webhooks: readonly { readonly trace: string; readonly format: string; readonly payload: unknown }[];
}

export interface VerispecMock {
  /** Pass to `setupServer(...mock.handlers)` or `setupWorker(...mock.handlers)`. */
  readonly handlers: HttpHandler[];
  readonly serviceUid: string;
  readonly secret: string;
  /** Forgets every verification and form, sets the clock back and starts the ids again. */
  reset(): void;
  state(): MockState;
  /** Moves the clock forward and completes the verifications now due. */
  advance(ms: number): Promise<void>;
}

/** Deterministic UUIDs (version 4 and variant bits set, so they are well-formed): 00000000-0000-4000-8000-000000000001, ... */
function counterIds(): { next: () => string; reset: () => void } {
  let n = 0;
  return { next: () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, "0")}`, reset: () => void (n = 0) };
}

/** The sandbox clock over an injected time. */
class MockClock extends SandboxClock {
  constructor(
    private readonly base: () => number,
    maxOffsetMs: number,
  ) {
    super(0, maxOffsetMs);
  }

  override now(): number {
    return this.base() + this.offset;
  }
}

/** The handlers over `binding` (the package's: verispec/msw's `createHandlers`). */
export function createMockHandlers(binding: SandboxBinding, options: MockOptions = {}): VerispecMock {
  const spec = binding.spec;
  const serviceUid = options.serviceUid ?? "msw-service-uid";
  const secret = options.secret ?? "msw-secret";
  const ids = counterIds();
  const newId = options.newId ?? ids.next;
  const store = memoryStore();
  const clock = new MockClock(options.now ?? Date.now, choice<number>(spec, "controlApi", "maxClockOffsetMs"));
  const service = new SandboxService({
    binding,
    store,
    newId,
    clock,
    webhookUrls: [],
    signatureVersion: binding.spec.payloadSignatureVersions.v5,
    processingMs: options.processingMs ?? 1000,
    signingSecret: options.signingSecret ?? "msw-signing-secret-0123456789",
  });
  const kit = httpKit(binding, clock, newId, { serviceUid, secret });
  const routes = mockRoutes(binding, service, clock, kit);
  const origin = options.baseUrl === undefined ? "*" : options.baseUrl.replace(/\/+$/, "");
  const handlers = routes.map((route) => {
    const pattern = pathPattern(route.path);
    const path = `${origin}${route.path.replace(/\{([A-Za-z]+)\}/g, ":$1")}`;
    const resolver = ({ request }: { request: Request }) => kit.answer(request, pattern, route, service);
    return route.method === "GET" ? http.get(path, resolver) : http.post(path, resolver);
  });
  return {
    handlers,
    serviceUid,
    secret,
    reset: () => {
      store.reset();
      ids.reset();
      clock.set(0);
    },
    state: () => mockState(store.state(), service, clock),
    advance: async (ms) => {
      // Through the store: the service reads the offset from it before each step (as the sandbox does).
      await service.advanceClock(ms);
      await service.processDue();
    },
  };
}

function mockState(s: ReturnType<ReturnType<typeof memoryStore>["state"]>, service: SandboxService, clock: SandboxClock): MockState {
  const verifications = [...s.verifications.values()].map(
    (v: Verification): MockVerification => ({
      ...service.detail(v),
      trace: v.trace,
      api: v.api,
      userId: v.userId,
      history: s.history.filter((h) => h.trace === v.trace).map(({ trace: _t, ...h }) => h),
    }),
  );
  const webhooks = s.outbox.map((o) => ({ trace: o.trace, format: o.format, payload: JSON.parse(o.body) as unknown }));
  return { now: clock.now(), verifications, webhooks };
}

/** The routes: spec/endpoints.yaml's operations (as the sandbox's handlers.ts answers them), and the control API's status and clock. */
function mockRoutes(binding: SandboxBinding, service: SandboxService, clock: SandboxClock, kit: Kit): MockRoute[] {
  const spec = binding.spec;
  const endpoint = (operationId: string) => spec.endpoints[operationId]!;
  const route = (operationId: string, handle: Handle, path?: string): MockRoute => {
    const e = endpoint(operationId);
    const auth = e.auth === "body" ? "body" : "basic";
    return { method: e.method as "GET" | "POST", path: path ?? e.path!, auth, answer: auth === "basic" ? "v5" : "older", handle };
  };
  const request = (operationId: string) => endpoint(operationId).request!;
  return [
    route("createVerification", async (c) => {
      const body = await kit.readJson(c.request);
      kit.validate(request("createVerification"), body);
      const { trace } = await service.createV5(body);
      const status = successStatus(spec, "createVerification");
      return kit.json(status, kit.envelope(c.sentUid, c.path, status, { message: spec.createdMessage, trace }));
    }),
    route("getVerification", async (c) => {
      const trace = c.captures[0]!;
      kit.params({ trace });
      const v = await service.get(trace);
      if (v?.api !== "v5") throw Object.assign(service.notFound("trace", { trace }), { trace });
      const status = successStatus(spec, "getVerification");
      return kit.json(
        status,
        kit.envelope(c.sentUid, c.path, status, {
          message: choice<string>(spec, "getMessage", "message"),
          trace,
          pathParams: { trace },
          data: service.detail(v),
        }),
      );
    }),
    route("verify", async (c) => {
      kit.validate(request("verify"), c.body);
      return kit.text(successStatus(spec, "verify"), (await service.verifyOlder(c.body)).text);
    }),
    route("idForm", async (c) => {
      kit.validate(request("idForm"), c.body);
      const id = await service.createForm(c.body);
      return kit.json(successStatus(spec, "idForm"), {
        source: choice<string>(spec, "formSource", "source"),
        serviceLink: `${new URL(c.request.url).origin}/_form/${id}`,
        verificationUuid: id,
        status: spec.formCreatedStatus,
      });
    }),
    route("getVerificationStatus", async (c) => {
      kit.validate(request("getVerificationStatus"), c.body);
      const text = await service.latestOlder({ trace: c.body.trace as string | undefined, userId: c.body.userId as string | undefined });
      if (text === undefined) throw service.notFound("traceOrUserId");
      return kit.text(successStatus(spec, "getVerificationStatus"), text);
    }),
    route(
      "submitRequestedActions",
      async (c) => {
        kit.validate(request("submitRequestedActions"), c.body);
        return kit.text(successStatus(spec, "submitRequestedActions"), await service.followUp(String(c.body.verificationUuid)));
      },
      endpoint("submitRequestedActions").path ?? choice<string>(spec, "followUpPath", "path"),
    ),
    ...controlRoutes(binding, service, clock, kit),
  ];
}

/** The sandbox's control API, as far as tests drive a verification: set a status, move the clock. */
function controlRoutes(binding: SandboxBinding, service: SandboxService, clock: SandboxClock, kit: Kit): MockRoute[] {
  const spec = binding.spec;
  const refuse = (message: "verificationStatus" | "maxAttempts" | "trigger" | "advanceMs", max?: number) =>
    refusedAs(spec, "badRequest", choice<Readonly<Record<string, string>>>(spec, "controlApi", "messages")[message]!.replace("{max}", String(max)));
  const object = async (request: Request) => {
    const body: unknown = await kit.readJson(request);
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw refusedAs(spec, "badRequest", choice<Record<string, string>>(spec, "requestBody", "messages").notObject!);
    return body as Record<string, unknown>;
  };
  return [
    {
      method: "POST",
      path: "/_sandbox/verifications/{trace}/status",
      auth: "basic",
      answer: "older",
      handle: async (c) => {
        const trace = c.captures[0]!;
        const { verificationStatus: to, maxAttempts, trigger } = await object(c.request);
        if (typeof to !== "string") throw refuse("verificationStatus");
        const cap = choice<number>(spec, "controlApi", "maxAttempts");
        if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && (maxAttempts as number) >= 1 && (maxAttempts as number) <= cap))
          throw refuse("maxAttempts", cap);
        if (trigger !== undefined && typeof trigger !== "string") throw refuse("trigger");
        kit.params({ trace, verificationStatus: to, trigger: trigger as string | undefined });
        const v = await service.applyStatus(trace, to, { maxAttempts: maxAttempts as number | undefined, trigger: trigger as string | undefined });
        return kit.json(200, service.detail(v));
      },
    },
    {
      method: "POST",
      path: "/_sandbox/clock",
      auth: "basic",
      answer: "older",
      handle: async (c) => {
        const { advanceMs: ms } = await object(c.request);
        const room = choice<number>(spec, "controlApi", "maxClockOffsetMs") - clock.offset;
        if (!(Number.isInteger(ms) && (ms as number) >= 0 && (ms as number) <= room)) throw refuse("advanceMs", room);
        await service.advanceClock(ms as number);
        await service.processDue();
        return kit.json(200, { now: clock.now(), clockOffsetMs: clock.offset });
      },
    },
  ];
}
