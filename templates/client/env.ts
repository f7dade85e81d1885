// The client's credentials from the environment: the same variables `verispec sandbox` reads its
// account from (docs/sandbox.md), so a program and the sandbox it talks to agree without copying values.
// No Node types: the environment is read through `globalThis.process` when there is one (Node, Deno, Bun).

/** The environment variables of the account's credentials (the sandbox reads the same). */
export const CREDENTIAL_VARIABLES = Object.freeze({ serviceUid: "VERISPEC_SANDBOX_SERVICE_UID", secret: "VERISPEC_SANDBOX_SECRET" } as const);

/** Environment variables by name, e.g. Node's `process.env`. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The running program's environment, or an empty one where there is none (a browser). */
export function processEnvironment(): Environment {
  return (globalThis as { process?: { env?: Environment } }).process?.env ?? {};
}

/** `serviceUid` and `secret` from `env`; a TypeError of one line naming each variable unset or empty (never a value). */
export function credentialsFrom(env: Environment, caller = "createClientFromEnv"): { serviceUid: string; secret: string } {
  const missing = Object.values(CREDENTIAL_VARIABLES).filter((name) => !env[name]);
  if (missing.length)
    throw new TypeError(`${caller}: ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set (the sandbox reads the same variables)`);
  return { serviceUid: env[CREDENTIAL_VARIABLES.serviceUid]!, secret: env[CREDENTIAL_VARIABLES.secret]! };
}
