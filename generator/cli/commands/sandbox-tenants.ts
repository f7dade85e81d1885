// `verispec sandbox --tenants <file>`: the accounts of a shared sandbox, read from a YAML file (JSON is YAML
// too), and how they combine with the one account of the environment (VERISPEC_SANDBOX_SERVICE_UID,
// VERISPEC_SANDBOX_SECRET, VERISPEC_SIGNING_SECRET, --webhook-url, --signature-version). The file is
// refused, before anything listens, when group or others may read or write it (as ssh refuses a key),
// and for anything wrong in it: one line naming the file, line:col and the field, never a secret's value
// (a YAML error is told by its code, not its message, which quotes the source line).
// docs/operating-a-shared-sandbox.md, Tenants.
import { readFileSync, statSync, type Stats } from "node:fs";
import { resolve } from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type YAMLMap } from "yaml";
import type { TenantOptions } from "../../../templates/sandbox/options.js";
import type { SignatureScheme } from "../../../templates/webhooks/index.js";
import { UsageError } from "../../diagnostics.js";

/**
 * A signature version as the call or the file writes it, and where (`file:line:col`, or the flag). It is
 * checked against the served spec's versions (webhooks.yaml signatures) once the spec is loaded: withVersions.
 */
export interface WrittenVersion {
  readonly value: string;
  readonly where: string;
}

/** One account as read, before the spec is loaded: the runtime's TenantOptions with its signature version as written. */
export interface TenantConfig extends Omit<TenantOptions, "signatureVersion"> {
  /** Undefined: the version the spec signs v5 payloads with (webhooks.yaml payloads). */
  readonly signatureVersion: WrittenVersion | undefined;
}

/** A tenant's name: it labels rows, logs and metrics, so it is plain and short. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;
/** The shortest secret and signing secret a tenants file may hold. */
export const MIN_SECRET_LENGTH = 16;
const FIELDS = ["name", "serviceUid", "secret", "signingSecret", "webhookUrls", "signatureVersion"] as const;
/** The tenant of the environment's account: it also owns what a one-account sandbox stored before. */
export const ENV_TENANT = "default";

/** Where a node is, as `file:line:col`. */
type At = (node: Node | undefined | null) => string;

/** The file's mode refusal: group or others may read or write it. Undefined when the mode is fine (or the platform has none). */
export function permissionProblem(mode: number, platform = process.platform): string | undefined {
  if (platform === "win32" || (mode & 0o077) === 0) return undefined;
  return `readable or writable by group or others (mode ${(mode & 0o777).toString(8).padStart(4, "0")}); it holds secrets: chmod 600 it`;
}

/** The text of the file, after its checks: a regular file, mode without group/other bits. */
function readChecked(file: string, shown: string): string {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (err) {
    throw new UsageError(`--tenants ${shown}: cannot read it (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  if (!stats.isFile()) throw new UsageError(`--tenants ${shown}: not a regular file`);
  const problem = permissionProblem(stats.mode);
  if (problem) throw new UsageError(`--tenants ${shown}: ${problem}`);
  return readFileSync(file, "utf8");
}

/** A text field of a tenant: a non-empty string without control characters (its value is never quoted). */
function text(map: YAMLMap, key: string, where: string, at: At): string {
  const node = map.get(key, true) as Node | undefined;
  if (node === undefined) throw new UsageError(`${at(map)}: ${where}: ${key} is missing`);
  const value = isScalar(node) ? node.value : undefined;
  if (typeof value !== "string" || value === "") throw new UsageError(`${at(node)}: ${where}: ${key} must be a non-empty string`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UsageError(`${at(node)}: ${where}: ${key} holds a control character`);
  return value;
}

/** The receivers of a tenant: a list of http(s) URLs (the value is not quoted: a URL may carry a password). */
function urls(map: YAMLMap, where: string, at: At): string[] {
  const node = map.get("webhookUrls", true) as Node | undefined;
  if (node === undefined) return [];
  if (!isSeq(node)) throw new UsageError(`${at(node)}: ${where}: webhookUrls must be a list of URLs`);
  return node.items.map((item, i) => {
    const value = isScalar(item) ? item.value : undefined;
    let url: URL | undefined;
    try {
      url = typeof value === "string" ? new URL(value) : undefined;
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
      throw new UsageError(`${at(item as Node)}: ${where}: webhookUrls[${i}] is not an http or https URL`);
    return url.href;
  });
}

/** A tenant's signatureVersion as written (a scalar); whether the spec names it is told by withVersions. */
function signatureVersion(map: YAMLMap, where: string, at: At): WrittenVersion | undefined {
  const node = map.get("signatureVersion", true) as Node | undefined;
  if (node === undefined) return undefined;
  if (!isScalar(node) || node.value === null || typeof node.value === "object")
    throw new UsageError(`${at(node)}: ${where}: signatureVersion must be a version of the spec's webhook signatures`);
  return { value: String(node.value), where: `${at(node)}: ${where}: signatureVersion` };
}

/** The versions a spec's signatures name, as a usage line says them: "2 or 1". */
const versionChoices = (scheme: SignatureScheme) => `${scheme.v2.version} or ${scheme.v1.version}`;

/** The version written, when the spec names it; else a UsageError at `where` (the value is not quoted: it is the file's). */
export function knownVersion(written: WrittenVersion, scheme: SignatureScheme): string {
  if (written.value === scheme.v2.version || written.value === scheme.v1.version) return written.value;
  throw new UsageError(`${written.where} must be ${versionChoices(scheme)}`);
}

/**
 * The accounts as the runtime takes them: each written signature version checked against the served spec's
 * signatures, and `byDefault` (the spec's v5 payload version) where none is written.
 */
export function withVersions(tenants: readonly TenantConfig[], scheme: SignatureScheme, byDefault: string): TenantOptions[] {
  return tenants.map((t) => ({ ...t, signatureVersion: t.signatureVersion === undefined ? byDefault : knownVersion(t.signatureVersion, scheme) }));
}

/** One item of `tenants:`. */
function tenantOf(item: unknown, index: number, at: At): TenantConfig {
  if (!isMap(item))
    throw new UsageError(`${at(item as Node)}: tenants[${index}] must be a mapping (name, serviceUid, secret, signingSecret, webhookUrls, signatureVersion)`);
  const unknown = item.items.find((p) => !(FIELDS as readonly string[]).includes(String(isScalar(p.key) ? p.key.value : p.key)));
  if (unknown)
    throw new UsageError(
      `${at(unknown.key as Node)}: tenants[${index}]: unknown field ${JSON.stringify(String(isScalar(unknown.key) ? unknown.key.value : "?")).slice(0, 80)} (the fields: ${FIELDS.join(", ")})`,
    );
  const nameNode = item.get("name", true) as Node | undefined;
  const name = text(item, "name", `tenants[${index}]`, at);
  if (!NAME.test(name))
    throw new UsageError(`${at(nameNode)}: tenants[${index}]: name must be 1 to 63 letters, digits, _ or - (starting with a letter or digit)`);
  const where = `tenant ${name}`;
  const serviceUid = text(item, "serviceUid", where, at);
  if (serviceUid.includes(":"))
    throw new UsageError(`${at(item.get("serviceUid", true) as Node)}: ${where}: serviceUid must not contain ":" (HTTP Basic splits there)`);
  const secret = text(item, "secret", where, at);
  const signingSecret = text(item, "signingSecret", where, at);
  for (const [key, value] of [
    ["secret", secret],
    ["signingSecret", signingSecret],
  ] as const) {
    if (value.length < MIN_SECRET_LENGTH)
      throw new UsageError(`${at(item.get(key, true) as Node)}: ${where}: ${key} must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  return { name, credentials: { serviceUid, secret }, signingSecret, webhookUrls: urls(item, where, at), signatureVersion: signatureVersion(item, where, at) };
}

/** Refuses two tenants with one name or one service UID (naming the tenants, not the UID). */
export function checkDistinct(tenants: readonly TenantConfig[], shown: string): void {
  tenants.forEach((t, i) => {
    const earlier = tenants.slice(0, i);
    if (earlier.some((e) => e.name === t.name)) throw new UsageError(`${shown}: two tenants are named ${t.name}`);
    const same = earlier.find((e) => e.credentials.serviceUid === t.credentials.serviceUid);
    if (same) throw new UsageError(`${shown}: tenants ${same.name} and ${t.name} have the same serviceUid`);
  });
}

/** The tenants of a tenants file (path relative to `cwd`), checked; a UsageError (exit 2) for anything wrong. */
export function readTenantsFile(path: string, cwd: string): TenantConfig[] {
  const file = resolve(cwd, path);
  const source = readChecked(file, path);
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at: At = (node) => {
    const p = lines.linePos(node?.range?.[0] ?? 0);
    return `${path}:${p.line}:${p.col}`;
  };
  const bad = doc.errors[0];
  if (bad) {
    const p = lines.linePos(bad.pos[0]);
    throw new UsageError(`${path}:${p.line}:${p.col}: not valid YAML (${bad.code})`);
  }
  const list = isMap(doc.contents) ? (doc.contents.get("tenants", true) as Node | undefined) : undefined;
  if (!isSeq(list) || list.items.length === 0)
    throw new UsageError(`${at(list ?? doc.contents)}: the file must hold "tenants:", a list of at least one tenant`);
  const tenants = list.items.map((item, i) => tenantOf(item, i, at));
  checkDistinct(tenants, path);
  return tenants;
}

/** The account of the environment, as it would join a tenants file (absent when neither credential is set). */
export interface EnvAccount {
  readonly serviceUid?: string;
  readonly secret?: string;
  readonly signingSecret?: string;
  readonly webhookUrls: readonly string[];
  readonly signatureVersion?: WrittenVersion;
}

/**
 * The accounts of a call with --tenants: the file's, and the environment's as the tenant named
 * ENV_TENANT when VERISPEC_SANDBOX_SERVICE_UID and VERISPEC_SANDBOX_SECRET are both set (it needs
 * VERISPEC_SIGNING_SECRET then; --webhook-url and --signature-version are its). Settings of an
 * environment account that is not there are refused rather than ignored.
 */
export function combineTenants(fromFile: readonly TenantConfig[], env: EnvAccount, shown: string): TenantConfig[] {
  const { serviceUid, secret, signingSecret } = env;
  if (serviceUid === undefined && secret === undefined) {
    const stray = [
      signingSecret !== undefined && "VERISPEC_SIGNING_SECRET",
      env.webhookUrls.length > 0 && "--webhook-url",
      env.signatureVersion !== undefined && "--signature-version",
    ].filter(Boolean);
    if (stray.length)
      throw new UsageError(
        `${stray.join(", ")} set the environment's account, which needs VERISPEC_SANDBOX_SERVICE_UID and VERISPEC_SANDBOX_SECRET; with --tenants give each tenant its own in ${shown}`,
      );
    return [...fromFile];
  }
  if (serviceUid === undefined || secret === undefined)
    throw new UsageError(`with --tenants, the environment's account needs both VERISPEC_SANDBOX_SERVICE_UID and VERISPEC_SANDBOX_SECRET (one is set)`);
  if (signingSecret === undefined)
    throw new UsageError(`with --tenants, the environment's account needs VERISPEC_SIGNING_SECRET too (no test value is made for a shared sandbox)`);
  const own: TenantConfig = {
    name: ENV_TENANT,
    credentials: { serviceUid, secret },
    signingSecret,
    webhookUrls: env.webhookUrls,
    signatureVersion: env.signatureVersion,
  };
  const all = [own, ...fromFile];
  checkDistinct(all, `${shown} and the environment`);
  return all;
}
