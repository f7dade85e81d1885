// Tenants on PGlite: the isolation suite (tenants-isolation.ts) over a database in memory.
import { describe } from "vitest";
import { isolationSuite } from "./tenants-isolation.js";

describe("tenants on PGlite: each sees only its own data", () => isolationSuite(() => "memory"));
