// The emitters, in one plain list. Each is a pure function from the model to files under generated/.
import { emitClient } from "./emit/client.js";
import { emitConformance } from "./emit/conformance/index.js";
import { emitDiagram } from "./emit/diagram.js";
import { emitJsonSchemas } from "./emit/json-schemas.js";
import { emitOpenApi } from "./emit/openapi.js";
import type { OutputFile } from "./emit/output.js";
import { emitRuntime } from "./emit/runtime.js";
import { emitSandbox } from "./emit/sandbox.js";
import { emitTypes } from "./emit/types/index.js";
import { emitValidators } from "./emit/validators/index.js";
import { emitWebhooks } from "./emit/webhooks.js";
import type { Model } from "./model/types.js";
import type { EmitContext } from "./context.js";

export type Emitter = (model: Model, ctx: EmitContext) => OutputFile[];

export const EMITTERS: readonly Emitter[] = [
  emitJsonSchemas,
  emitOpenApi,
  emitValidators,
  emitTypes,
  emitClient,
  emitWebhooks,
  emitSandbox,
  emitRuntime,
  emitDiagram,
  emitConformance,
];
