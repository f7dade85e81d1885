// The emitters, in one plain list. Each is a pure function from the model to files under generated/.
import type { OutputFile } from "./emit/output.js";
import { emitJsonSchemas } from "./emit/json-schemas.js";
import { emitOpenApi } from "./emit/openapi.js";
import type { Model } from "./model/types.js";
import type { EmitContext } from "./pipeline.js";

export type Emitter = (model: Model, ctx: EmitContext) => OutputFile[];

export const EMITTERS: readonly Emitter[] = [emitJsonSchemas, emitOpenApi];
