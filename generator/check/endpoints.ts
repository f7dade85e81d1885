// Check: endpoints.yaml: request, response and error-body schemas exist, error types, limits and auth
// schemes are declared, path parameters are exactly the path's, client names are used once (the meta-schema
// allows one group at most), every `auth: body` request carries the credential fields the client adds, and an
// endpoint shows at most one success (2xx) status.
import { describeValue, nameList } from "../diagnostics.js";
import { at, CREDENTIAL_FIELDS, rawAt, successStatuses, type At, type Raw } from "../load/spec-access.js";
import type { Checks } from "./context.js";
import { shapeSources } from "./shapes.js";

/** The fields of a request schema by name: own properties/fields and those of included field sets. */
function requestFields(c: Checks, id: string): Record<string, Raw> | undefined {
  const sets = rawAt(c.root("fieldsets.yaml")).fieldSets as Record<string, Raw>;
  const withIncludes = (r: Raw, own: Raw | undefined) => ({
    ...Object.assign({}, ...((r.include ?? []) as string[]).map((s) => sets[s]?.fields ?? {})),
    ...own,
  });
  const shape = shapeSources(c).get(id);
  if (shape) return withIncludes(rawAt(shape), rawAt(shape).properties);
  const older = rawAt(c.root("older.yaml"));
  const request = older.entityRequests[id];
  if (request) return { ...withIncludes(older.envelope, older.envelope.fields), ...request.fields };
  return undefined;
}

export function checkEndpoints(c: Checks): void {
  const root = c.root("endpoints.yaml");
  const ep = rawAt(root);
  const shapes = shapeSources(c);
  const older = rawAt(c.root("older.yaml"));
  const errorTypes = Object.keys(rawAt(c.root("errors.yaml")).errorTypes);
  const limits = rawAt(c.root("limits.yaml")).limits;
  const metadataVersion = rawAt(c.root("versions.yaml")).olderInterface.metadataVersion;
  const isRequest = (id: string) => id in older.entityRequests;
  const clients = new Map<string, string>();
  for (const [op, e] of Object.entries(ep.endpoints as Record<string, Raw>)) {
    const a = at(root, "endpoints", op);
    const schema = (where: At, id: string, orRequest: boolean) => {
      if (!shapes.has(id) && !(orRequest && isRequest(id)))
        c.report("VS317", where, { value: JSON.stringify(id), orRequest: orRequest ? " or an entity request" : "" });
    };
    if (e.request) schema(at(a, "request"), e.request, true);
    for (const [status, id] of Object.entries(e.responses as Record<string, string>)) schema(at(a, "responses", status), id, false);
    const successes = successStatuses(e.responses as Record<string, string>);
    if (successes.length > 1) c.report("VS440", at(a, "responses", successes[1]!), { count: successes.length, statuses: successes.join(", ") });
    schema(at(a, "errorBody"), e.errorBody, false);
    ((e.errors ?? []) as string[]).forEach((t, i) => {
      if (!errorTypes.includes(t)) c.report("VS311", at(a, "errors", i), { value: JSON.stringify(t), choices: nameList(errorTypes) });
    });
    ((e.limits ?? []) as string[]).forEach((l, i) => {
      if (!limits[l]) c.report("VS312", at(a, "limits", i), { value: JSON.stringify(l) });
    });
    if (!ep.auth[e.auth]) c.report("VS315", at(a, "auth"), { value: describeValue(e.auth), choices: nameList(Object.keys(ep.auth)) });
    const inPath = [...String(e.path ?? "").matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const declared = Object.keys(e.pathParams ?? {});
    if (inPath.join() !== declared.join())
      c.report("VS415", at(a, e.pathParams ? "pathParams" : "path"), { declared: declared.join(", "), path: String(e.path), inPath: inPath.join(", ") });
    const other = clients.get(e.client);
    if (other) c.report("VS416", at(a, "client"), { client: e.client, other });
    clients.set(e.client, op);
    if (e.auth === "body" && e.request) {
      const fields = requestFields(c, e.request);
      const missing = fields ? CREDENTIAL_FIELDS.find((f) => !fields[f]) : undefined;
      if (missing) c.report("VS417", at(a, "request"), { field: missing });
      else if (fields && fields.metadata_version!.const !== metadataVersion) {
        c.report("VS413", at(a, "request"), { value: describeValue(metadataVersion), envelope: describeValue(fields.metadata_version!.const) });
      }
    }
  }
}
