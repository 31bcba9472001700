/**
 * The library's one error family: {@linkcode ShellError}, with a stable
 * `code`, and the seam's classes under it. Each also keeps a stable `name`
 * so callers can tell them apart after serialisation, where `instanceof` no
 * longer works; {@linkcode isShellError} recognises the family across copies
 * of the library, where `instanceof` fails too.
 *
 * @module
 */

/**
 * The stable code of each error of the library, one per class (a
 * `ShellFileError`'s says which failure of a file operation it is): what a
 * caller compares, across copies of the library and after serialisation.
 * `ERR_SHELL_ARGUMENT` is the one member that is a `TypeError` (named so):
 * an argument of the wrong type given to a function of the library that is
 * not a request's, a spec's or an option's field (those are
 * `ERR_SHELL_SPEC`).
 */
export type ShellErrorCode =
  | "ERR_SHELL_SPEC"
  | "ERR_SHELL_SPAWN"
  | "ERR_SHELL_CLOSED"
  | "ERR_TASK_ACCESS"
  | "ERR_TASK_LIMIT"
  | "ERR_SHELL_SANDBOX"
  | "ERR_SHELL_ENGINE"
  | "ERR_HOOK_SETTINGS"
  | "ERR_TOOL_INPUT"
  | "ERR_CLI_USAGE"
  | "ERR_CLI_MISSING_PEER"
  | "ERR_SHELL_ARGUMENT"
  | ShellFileErrorCode;

/**
 * The codes of {@linkcode ShellFileError}, one per way a file operation of
 * `shell.files()` fails: the path or its parent is missing (`ENOENT`), the
 * kernel refused (`EACCES`: not readable or not writable there, or not a
 * regular file), a path that must not exist does (`EEXIST`), a directory was
 * given as a file (`EISDIR`), the file is binary (`EBINARY`) or too large to
 * edit whole (`EFBIG`), an edit's `oldString` is missing or not unique
 * (`EDITMATCH`), a patch cannot be parsed or applied (`PATCH`).
 */
export type ShellFileErrorCode =
  | "ENOENT"
  | "EACCES"
  | "EEXIST"
  | "EISDIR"
  | "EBINARY"
  | "EFBIG"
  | "EDITMATCH"
  | "PATCH";

/**
 * The family's mark, in the runtime's global symbol registry: shared by every
 * copy of the library loaded in one process (two versions in `node_modules`,
 * a bundle and its source), which `instanceof` cannot see past.
 */
const FAMILY = Symbol.for("@dsh/shell:ShellError");

/**
 * Every error the library throws: a subclass of this, with a stable `code`
 * ({@linkcode ShellErrorCode}). Ask {@linkcode isShellError} rather than
 * `instanceof` when the error may come from another copy of the library.
 *
 * @example
 * ```ts
 * import { createLocalShell, isShellError, ShellError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * try {
 *   shell.resolve({ command: "ls", owner: null, timeoutMs: 0 });
 *   assert.fail("resolve() accepted a zero timeout");
 * } catch (error) {
 *   assert.ok(isShellError(error) && error instanceof ShellError);
 *   assert.equal(error.code, "ERR_SHELL_SPEC");
 * }
 * ```
 */
export abstract class ShellError extends Error {
  /** What kind of error this is; stable across versions and copies of the library. */
  abstract readonly code: ShellErrorCode;

  /**
   * `instanceof ShellError` holds for every member of this copy's family:
   * the subclasses, and {@linkcode ShellArgumentError}, which is a
   * `TypeError` (a class has one parent). `instanceof` a subclass is the
   * usual check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    const ordinary = Function.prototype[Symbol.hasInstance];
    if (this !== ShellError) return ordinary.call(this, value);
    return ordinary.call(ShellError, value) || ordinary.call(ShellArgumentError, value);
  }
}
Object.defineProperty(ShellError.prototype, FAMILY, { value: true });

/**
 * Whether `value` is an error of this library's family, from this copy of it
 * or any other loaded in the process. Then `code` tells which.
 *
 * @example
 * ```ts
 * import { createLocalShell, isShellError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const shell = createLocalShell();
 * await shell.close();
 * const error = await shell.exec("true").catch((error: unknown) => error);
 * assert.ok(isShellError(error));
 * assert.equal(error.code, "ERR_SHELL_CLOSED");
 * assert.equal(isShellError(new Error("foreign")), false);
 * ```
 */
export function isShellError(value: unknown): value is ShellError {
  return typeof value === "object" && value !== null && (value as { [FAMILY]?: unknown })[FAMILY] === true &&
    typeof (value as { code?: unknown }).code === "string";
}

/**
 * A request, spec or option is invalid. The message names the field, e.g.
 * `ShellSpecError: timeoutMs: must be a positive, finite number (got -1)`.
 *
 * @example
 * ```ts
 * import { createLocalShell, ShellSpecError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * assert.throws(() => shell.resolve({ command: "ls", owner: null, timeoutMs: -1 }), (error) => {
 *   assert.ok(error instanceof ShellSpecError);
 *   assert.equal(error.field, "timeoutMs");
 *   assert.equal(error.message, "timeoutMs: must be a positive, finite number (got -1)");
 *   return true;
 * });
 * ```
 */
export class ShellSpecError extends ShellError {
  /** {@linkcode ShellErrorCode} of this class. */
  readonly code = "ERR_SHELL_SPEC" as const;
  /** The field or option at fault, as a path such as `env["A=B"]`. */
  readonly field: string;

  /**
   * Creates the error; the message is `<field>: <problem>`.
   *
   * @param field The field or option at fault.
   * @param problem What is wrong with it, in words a user can act on.
   */
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = "ShellSpecError";
    this.field = field;
  }
}

/**
 * The command could not be started: the working directory or the shell is
 * missing, or the platform is unsupported. The message names the path.
 * Also what a command that failed for a reason the library did not foresee
 * rejects with (a task's `spawnError`): "the command could not be run: …",
 * with that failure as its `cause`.
 *
 * @example
 * ```ts
 * import { createLocalShell, ShellSpawnError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const spec = shell.resolve({ command: "pwd", owner: null, workdir: "/nonexistent" });
 * await assert.rejects(shell.run(spec), (error) => {
 *   assert.ok(error instanceof ShellSpawnError);
 *   assert.equal(error.path, "/nonexistent");
 *   return true;
 * });
 * ```
 */
export class ShellSpawnError extends ShellError {
  /** {@linkcode ShellErrorCode} of this class. */
  readonly code = "ERR_SHELL_SPAWN" as const;
  /** The path that could not be used, when there is one. */
  readonly path?: string;

  /**
   * Creates the error.
   *
   * @param message What failed, naming the path.
   * @param path The missing or unusable path.
   * @param options The underlying error, as `cause`.
   */
  constructor(message: string, path?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ShellSpawnError";
    if (path !== undefined) this.path = path;
  }
}

/**
 * The shell (or a session of it) was closed: `close()` was called, and no new work is accepted.
 *
 * @example
 * ```ts
 * import { createLocalShell, ShellClosedError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const shell = createLocalShell();
 * await shell.close();
 * await assert.rejects(shell.run(shell.resolve({ command: "true", owner: null })), {
 *   name: "ShellClosedError",
 *   message: "the shell is closed",
 * });
 * assert.throws(() => shell.start(shell.resolve({ command: "true", owner: null })), ShellClosedError);
 * ```
 */
export class ShellClosedError extends ShellError {
  /** {@linkcode ShellErrorCode} of this class. */
  readonly code = "ERR_SHELL_CLOSED" as const;
  /** Creates the error; `what` is the shell, or the session that was closed. */
  constructor(what: "shell" | "session" = "shell") {
    super(`the ${what} is closed`);
    this.name = "ShellClosedError";
  }
}

/**
 * No task with this id is visible to this owner. The message is the same
 * whether the id is unknown or belongs to another owner, so a caller cannot
 * learn that someone else's task exists. Also what a visible task's
 * `write()`, `closeStdin()` and `resize()` reject with when its input is
 * not open (not kept open, closed, or the task ended) or it has no terminal.
 *
 * @example
 * ```ts
 * import { createLocalShell, TaskAccessError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const task = shell.start(shell.resolve({ command: "true", owner: "alice" }));
 * assert.throws(() => shell.task(task.id, "bob"), TaskAccessError);
 * assert.throws(() => shell.task("no-such-task", "bob"), {
 *   name: "TaskAccessError",
 *   message: 'no task "no-such-task" is visible to this owner',
 * });
 * assert.equal(shell.task(task.id, "alice"), task);
 * ```
 */
export class TaskAccessError extends ShellError {
  /** {@linkcode ShellErrorCode} of this class. */
  readonly code = "ERR_TASK_ACCESS" as const;
  /** The id that was asked for. */
  readonly taskId: string;

  /**
   * Creates the error.
   *
   * @param taskId The id that was asked for.
   * @param problem What was refused on a task the caller may see (its input is not open, say); absent: the task is
   *   not visible.
   */
  constructor(taskId: string, problem?: string) {
    super(
      `${problem === undefined ? "no task" : "task"} ${JSON.stringify(taskId)} ${
        problem ?? "is visible to this owner"
      }`,
    );
    this.name = "TaskAccessError";
    this.taskId = taskId;
  }
}

/**
 * An owner already has `maxTasksPerOwner` running background tasks.
 *
 * @example
 * ```ts
 * import { createLocalShell, TaskLimitError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell({ maxTasksPerOwner: 1 });
 * shell.start(shell.resolve({ command: "sleep 60", owner: "s1" })); // close() ends it
 * assert.throws(() => shell.start(shell.resolve({ command: "sleep 60", owner: "s1" })), (error) => {
 *   assert.ok(error instanceof TaskLimitError);
 *   assert.deepEqual([error.owner, error.limit], ["s1", 1]);
 *   return true;
 * });
 * ```
 */
export class TaskLimitError extends ShellError {
  /** {@linkcode ShellErrorCode} of this class. */
  readonly code = "ERR_TASK_LIMIT" as const;
  /** The owner at its limit, or `null` for the shared unowned bucket. */
  readonly owner: string | null;
  /** The limit that was reached. */
  readonly limit: number;

  /**
   * Creates the error.
   *
   * @param owner The owner at its limit, or `null` for unowned tasks.
   * @param limit The configured `maxTasksPerOwner`.
   */
  constructor(owner: string | null, limit: number) {
    const who = owner === null ? "unowned tasks already have" : `owner ${JSON.stringify(owner)} already has`;
    super(`${who} ${limit} running background tasks (maxTasksPerOwner)`);
    this.name = "TaskLimitError";
    this.owner = owner;
    this.limit = limit;
  }
}

/**
 * The sandbox could not be set up: no bubblewrap, an old one, user
 * namespaces switched off, an unsupported platform (at `createLocalShell`),
 * or a sandbox that failed to start one command (a bind source that
 * vanished). The message says why and, where it can, how to fix it. A
 * sandboxed shell never runs a command unsandboxed instead.
 *
 * @example
 * ```ts
 * import { createLocalShell, ShellSandboxError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const error = (() => {
 *   try {
 *     createLocalShell({ sandbox: { bwrapPath: "/nonexistent/bwrap" } });
 *   } catch (error) {
 *     return error;
 *   }
 * })();
 * assert.ok(error instanceof ShellSandboxError);
 * assert.equal(error.name, "ShellSandboxError");
 * ```
 */
export class ShellSandboxError extends ShellError {
  /** {@linkcode ShellErrorCode} of this class. */
  readonly code = "ERR_SHELL_SANDBOX" as const;
  /**
   * Creates the error.
   *
   * @param message Why the sandbox could not be set up, and the fix.
   * @param options The underlying error, as `cause`.
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ShellSandboxError";
  }
}

/**
 * An engine could not run a command: the container is missing or not
 * running, the host refused or dropped the connection, the engine's CLI
 * (`docker`, `ssh`) is missing, or the engine went away while the command
 * ran. Never an exit code: `ssh` exits 255 for its own failures and a
 * command may too, so the library tells them apart and reports the engine's
 * as this error. The message names the engine, its target and the cause.
 *
 * @example
 * ```ts
 * import { ShellEngineError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const error = new ShellEngineError("ssh", "agent@10.0.0.5:22", "connection refused");
 * assert.equal(error.name, "ShellEngineError");
 * assert.equal(error.message, "ssh agent@10.0.0.5:22: connection refused");
 * assert.deepEqual([error.engine, error.target], ["ssh", "agent@10.0.0.5:22"]);
 * ```
 */
export class ShellEngineError extends ShellError {
  /** {@linkcode ShellErrorCode} of this class. */
  readonly code = "ERR_SHELL_ENGINE" as const;
  /** The engine's name, e.g. `"docker"` or `"ssh"`. */
  readonly engine: string;
  /** What the engine reaches, e.g. `"container agent-7"` or `"agent@10.0.0.5:22"`. */
  readonly target: string;

  /**
   * Creates the error; the message is `<engine> <target>: <cause>`.
   *
   * @param engine The engine's name.
   * @param target What the engine reaches.
   * @param cause What went wrong, in words a user can act on.
   * @param options The underlying error, as `cause`.
   */
  constructor(engine: string, target: string, cause: string, options?: { cause?: unknown }) {
    super(`${engine} ${target}: ${cause}`, options);
    this.name = "ShellEngineError";
    this.engine = engine;
    this.target = target;
  }
}

/**
 * A file operation of `shell.files()` failed: the message names the path
 * (quoted as JSON, so a name holding a newline stays one line) and says why;
 * `code` is one of {@linkcode ShellFileErrorCode}, `path` the absolute path
 * at fault. Nothing was half-written: a write is atomic, a patch all or
 * nothing.
 *
 * @example
 * ```ts
 * import { createLocalShell, ShellFileError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell({ workdir: "/" });
 * const files = shell.files({ owner: "agent-1" });
 * await assert.rejects(files.read("/nonexistent/notes.txt"), (error) => {
 *   assert.ok(error instanceof ShellFileError);
 *   assert.equal(error.code, "ENOENT");
 *   assert.equal(error.path, "/nonexistent/notes.txt");
 *   return true;
 * });
 * ```
 */
export class ShellFileError extends ShellError {
  /** Which failure: {@linkcode ShellFileErrorCode}. */
  readonly code: ShellFileErrorCode;
  /** The absolute path at fault (for a patch that cannot be parsed, the patch's own `"patch"`). */
  readonly path: string;

  /**
   * Creates the error; the message is `<path as JSON>: <problem>`.
   *
   * @param code Which failure.
   * @param path The absolute path at fault.
   * @param problem What is wrong, in words a user (or a model) can act on.
   */
  constructor(code: ShellFileErrorCode, path: string, problem: string) {
    super(`${JSON.stringify(path)}: ${problem}`);
    this.name = "ShellFileError";
    this.code = code;
    this.path = path;
  }
}

/**
 * An argument of the wrong type (or out of range) given to a function of
 * the library that is not a request's, a spec's or a shell option's (those
 * are a {@linkcode ShellSpecError}): a listener that is not a function, a
 * framework adapter's options without an `owner`. The message is
 * `<field>: <problem>`. It is also a `TypeError` named `"TypeError"`, as
 * these errors were before they joined the family, so a caller's
 * `instanceof TypeError` and `/^TypeError:/` still hold; `code` tells it
 * apart, and `instanceof ShellError` holds too.
 *
 * @example
 * ```ts
 * import { createLocalShell, isShellError, ShellError } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * assert.throws(() => shell.events.subscribe("not a function" as never), (error) => {
 *   assert.ok(error instanceof TypeError && error instanceof ShellError && isShellError(error));
 *   assert.equal(error.code, "ERR_SHELL_ARGUMENT");
 *   assert.equal(String(error), "TypeError: listener: must be a function");
 *   return true;
 * });
 * ```
 */
export class ShellArgumentError extends TypeError {
  /** {@linkcode ShellErrorCode} of this class. */
  readonly code = "ERR_SHELL_ARGUMENT" as const;
  /** The argument at fault, or its field, e.g. `owner`. */
  readonly field: string;

  /**
   * Creates the error; the message is `<field>: <problem>`.
   *
   * @param field The argument or field at fault.
   * @param problem What is wrong with it, in words a user can act on.
   */
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = "TypeError";
    this.field = field;
  }
}
Object.defineProperty(ShellArgumentError.prototype, FAMILY, { value: true });
