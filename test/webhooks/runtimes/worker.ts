// A Cloudflare Worker (run by workerd): GET /run verifies every vector inside the Worker; POST /verify
// verifies the delivery it is sent through `verifyWebhookRequest` (the Fetch entry), with the key,
// clock and body-signature flag from the query string, and one replay store per `store` name.
import { MemoryReplayStore, runAll, verifyDeliveryRequest } from "./entry.js";

const stores = new Map<string, MemoryReplayStore>();
let clock = 0;

function storeNamed(name: string): MemoryReplayStore {
  let store = stores.get(name);
  if (store === undefined) stores.set(name, (store = new MemoryReplayStore({ now: () => clock })));
  return store;
}

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/run") return Response.json(await runAll());
    if (url.pathname !== "/verify" || request.method !== "POST") return new Response("not found", { status: 404 });
    const q = url.searchParams;
    clock = Number(q.get("now"));
    const delivery = { secrets: q.getAll("secret"), now: clock, allowBodySignature: q.get("allowBodySignature") === "1", expect: { verdict: "" } };
    return Response.json(await verifyDeliveryRequest(request, delivery, storeNamed(q.get("store") ?? "")));
  },
};
