/**
 * Why a program (the shell of a command line, or the program of the argv
 * form) could not be started. Runtimes say too little: Node reports
 * most exec errors only later, in an `error` event, and either runtime may
 * say "not found" for a script whose `#!` interpreter is missing. So the
 * seam asks the file system itself when an adapter reports a failed spawn
 * (adapters only pass on their runtime's error): is the shell there, is it
 * executable for us, is its interpreter there; only when all of that looks
 * right is the failure the system's refusal (E2BIG, EAGAIN, …).
 *
 * Runtime-neutral: `node:fs` and `node:path` only.
 *
 * @module
 */

import { accessSync, closeSync, constants, openSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";

/** Where exec searches when the child's environment has no `PATH` (libuv's and glibc's default). */
const DEFAULT_PATH = "/usr/bin:/bin";

/** What more the adapter knows about a failed spawn. */
export interface ShellFailureContext {
  /** The child's working directory: relative shell paths and empty `PATH` entries mean it. */
  cwd?: string;
  /** The runtime's own error, when it gave one synchronously; its `code` refines the message. */
  cause?: unknown;
  /** What the program is to the caller: the `shell` of a command line (the default), or the `program` of the argv form. */
  role?: "shell" | "program";
}

/** What the file system says about one candidate file. */
type FileVerdict =
  | { kind: "missing" }
  | { kind: "not-executable"; file: string; why: string }
  | { kind: "bad-interpreter"; file: string; interpreter: string; why: string }
  | { kind: "fine"; file: string };

/** How many of `PATH`'s directories a message names: a long `PATH` (hundreds of characters) would bury the point. */
const PATH_DIRS_SHOWN = 3;

/** `PATH=/usr/bin:/bin`, or for a longer one `PATH (9 directories): /a:/b:/c:…`. */
export function shownPath(path: string): string {
  const dirs = path.split(":");
  if (dirs.length <= PATH_DIRS_SHOWN) return `PATH=${path}`;
  return `PATH (${dirs.length} directories): ${dirs.slice(0, PATH_DIRS_SHOWN).join(":")}:…`;
}

/**
 * A one-line message for a program that could not be started, e.g.
 * `cannot start the shell "bash": not found (PATH=/usr/bin:/bin)` for a
 * command line's shell, or `cannot start the program "python3": not found
 * (PATH=/usr/bin:/bin)` for the argv form. A `PATH` of more than three
 * directories is shown as its count and its first three.
 *
 * @param program The program as given (`bash`, `/bin/zsh`, `./sh`, `python3`).
 * @param path The `PATH` of the child's environment (searched when `program` has no "/").
 * @param context The child's working directory, the runtime's error when known, and what the program is.
 */
export function describeSpawnFailure(
  program: string,
  path: string | undefined,
  context: ShellFailureContext = {},
): string {
  const prefix = `cannot start the ${context.role ?? "shell"} "${program}"`;
  const code = errorCode(context.cause);
  // E2BIG is about the arguments and environment, whatever the program is.
  if (code === "E2BIG") {
    return `${prefix}: the command and its environment are larger than the system allows for a new process (E2BIG)`;
  }
  const cwd = context.cwd ?? ".";
  const searchesPath = !program.includes("/");
  const verdict = searchesPath ? searchPath(program, path, cwd) : examine(resolve(cwd, program));
  const where = searchesPath
    ? ` (${path === undefined ? `PATH is not set; searched ${DEFAULT_PATH}` : shownPath(path)})`
    : "";
  switch (verdict.kind) {
    case "missing":
      return `${prefix}: not found${where}`;
    case "not-executable":
      return searchesPath ? `${prefix}: ${verdict.file} ${verdict.why}${where}` : `${prefix}: it ${verdict.why}`;
    case "bad-interpreter":
      return `${prefix}: its interpreter "${verdict.interpreter}" (the #! line of ${verdict.file}) ${verdict.why}`;
    case "fine": {
      const detail = code !== undefined && /^E[A-Z0-9]+$/.test(code)
        ? code
        : context.cause instanceof Error
        ? context.cause.message
        : undefined;
      return `${prefix} (the system refused to create the process${detail === undefined ? "" : `: ${detail}`})`;
    }
  }
}

/** Searches `path` as exec does: the first executable file named `name` wins. */
function searchPath(name: string, path: string | undefined, cwd: string): FileVerdict {
  let unusable: FileVerdict | undefined;
  for (const dir of (path ?? DEFAULT_PATH).split(":")) {
    // An empty entry is the working directory (a POSIX legacy exec still honours).
    const verdict = examine(resolve(cwd, dir === "" ? "." : dir, name));
    if (verdict.kind === "fine" || verdict.kind === "bad-interpreter") return verdict;
    if (verdict.kind === "not-executable") unusable ??= verdict;
  }
  return unusable ?? { kind: "missing" };
}

/** Looks at one file: there, a regular file, executable for us, and with a usable `#!` interpreter. */
function examine(file: string): FileVerdict {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return { kind: "missing" };
  }
  if (stat.isDirectory()) return { kind: "not-executable", file, why: "is a directory, not an executable file" };
  if (!stat.isFile()) return { kind: "not-executable", file, why: "is not a regular file, so it is not executable" };
  if (!isExecutable(file)) return { kind: "not-executable", file, why: "is not executable" };
  const interpreter = shebangInterpreter(file);
  if (interpreter !== undefined && interpreter.startsWith("/")) {
    let interpreterIsFile = false;
    try {
      interpreterIsFile = statSync(interpreter).isFile();
    } catch {
      return { kind: "bad-interpreter", file, interpreter, why: "is not found" };
    }
    if (!interpreterIsFile || !isExecutable(interpreter)) {
      return { kind: "bad-interpreter", file, interpreter, why: "is not executable" };
    }
  }
  return { kind: "fine", file };
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The interpreter named on a `#!` first line, or undefined (no such line, or unreadable). */
function shebangInterpreter(file: string): string | undefined {
  const head = new Uint8Array(256);
  let length: number;
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    length = readSync(fd, head, 0, head.length, 0);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (length < 2 || head[0] !== 0x23 || head[1] !== 0x21) return undefined; // "#!"
  const line = new TextDecoder().decode(head.subarray(2, length)).split("\n", 1)[0];
  const interpreter = line.trim().split(/[ \t]/, 1)[0];
  return interpreter === "" ? undefined : interpreter;
}

/** The errno name a runtime error carries (`E2BIG`, `EAGAIN`, …), if any. */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.length > 0 ? code : undefined;
}
