// What the layers hand each other: the CLI's view of the process (Io), the directories a command works
// on (Dirs) and what an emitter may know besides the model (EmitContext). A leaf module: every layer
// imports it, it imports no layer, so no import runs back up.

/** The process as a command sees it; tests pass their own. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Standard input as UTF-8; with `maxBytes`, reading stops once more than that has arrived. */
  readonly stdin: (maxBytes?: number) => Promise<string>;
}

/** The directories of one command call, absolute. */
export interface Dirs {
  /** The spec directory read (spec/ of the working directory, else the package's own). */
  readonly spec: string;
  /** The output directory (generated/ of the working directory unless --out). */
  readonly out: string;
  /** Whether `out` was given (--out) rather than defaulted. */
  readonly outGiven: boolean;
}

export interface EmitContext {
  /** The package root: templates/ is read from here. */
  readonly root: string;
}

export const processIo: Io = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
  cwd: process.cwd(),
  stdin: async (maxBytes = Infinity) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of process.stdin) {
      chunks.push(c as Buffer);
      if ((size += (c as Buffer).length) > maxBytes) break; // the rest is never read
    }
    return Buffer.concat(chunks).toString("utf8");
  },
};
