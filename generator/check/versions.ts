// Check: the older interface's version is the same in versions.yaml and in the envelope's
// `metadata_version` (specification sections 2.1, 9).
import { describeValue } from "../diagnostics.js";
import { at, rawAt, type Raw } from "../load/spec-access.js";
import type { Checks } from "./context.js";

export function checkVersions(c: Checks): void {
  const sets = rawAt(c.root("fieldsets.yaml")).fieldSets as Record<string, Raw>;
  const envelope = rawAt(c.root("older.yaml")).envelope;
  const fields = { ...Object.assign({}, ...((envelope.include ?? []) as string[]).map((s) => sets[s]?.fields ?? {})), ...envelope.fields } as Record<
    string,
    Raw
  >;
  const envelopeVersion = fields.metadata_version?.const;
  const root = c.root("versions.yaml");
  const version = rawAt(root).olderInterface.metadataVersion;
  if (envelopeVersion !== version)
    c.report("VS413", at(root, "olderInterface", "metadataVersion"), { value: describeValue(version), envelope: describeValue(envelopeVersion) });
}
