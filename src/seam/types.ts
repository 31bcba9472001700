/**
 * The shell's own contract: what a caller asks for (`ShellExecRequest`,
 * `ShellExecOptions`), what the shell acts on (`ShellExecSpec`), how it is
 * configured (`LocalShellOptions`) and the `Shell` itself. The shapes of
 * each feature live beside the feature (the output and the observer in
 * `capture/types.ts`, the result in `settle/types.ts`, the sandbox policy
 * in `sandbox/types.ts`, a task's in `tasks/types.ts`); this file
 * re-exports them, so the root entry and the seam's consumers take every
 * public shape from one place at the seam's top.
 *
 * @module
 */

import type { ProcessAdapter } from "./adapter.ts";
import type { ShellObserver } from "./capture/types.ts";
import type { ShellEvents } from "./events/types.ts";
import type { ShellFiles } from "./files/types.ts";
import type { SandboxPolicy } from "./sandbox/types.ts";
import type { ShellRunResult } from "./settle/types.ts";
import type { ShellTask } from "./tasks/types.ts";

// Consumers may not reach into the seam's folders (tests/architecture.test.ts), so the shapes they name pass through here.
export type { CollectedOutput, ShellObserver } from "./capture/types.ts";
export type { ShellEvent, ShellEvents, ShellFileEvent } from "./events/types.ts";
export type {
  ShellFileEdit,
  ShellFilePatchChange,
  ShellFileRead,
  ShellFileReadOptions,
  ShellFiles,
  ShellFileWritten,
} from "./files/types.ts";
export type { SandboxPolicy } from "./sandbox/types.ts";
export type { ShellRunResult } from "./settle/types.ts";
export type { ShellTask, TaskOutput, TaskOutputWait, TaskStatus, WaitForOutputOptions } from "./tasks/types.ts";

/**
 * Environment variables in the managed `DSH_*` channel.
 *
 * @example
 * ```ts
 * import { createLocalShell, type DshEnv } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const dshEnv: DshEnv = { DSH_SESSION: "session-7" };
 * await using shell = createLocalShell();
 * const result = await shell.run(shell.resolve({ command: 'echo "$DSH_SESSION"', owner: "session-7", dshEnv }));
 * assert.equal(result.stdout.text, "session-7\n");
 * ```
 */
export type DshEnv = Record<`DSH_${string}`, string>;

/**
 * Ordinary environment entries passed by a trusted caller. A value of
 * `undefined` removes the entry from the ambient environment.
 *
 * @example
 * ```ts
 * import { createLocalShell, type EnvPatch } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const env: EnvPatch = { LANG: "C.UTF-8", EDITOR: undefined }; // set LANG, remove EDITOR
 * await using shell = createLocalShell({ ambientEnv: { PATH: "/usr/bin:/bin", EDITOR: "vim" } });
 * const result = await shell.run(shell.resolve({ command: 'echo "$LANG ${EDITOR:-none}"', owner: null, env }));
 * assert.equal(result.stdout.text, "C.UTF-8 none\n");
 * ```
 */
export type EnvPatch = Record<string, string | undefined>;

/**
 * What a model, a plugin or a hook bridge asks to run. `resolve()` turns it
 * into a {@linkcode ShellExecSpec}.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellExecRequest } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const turn = new AbortController();
 * const request: ShellExecRequest = {
 *   command: "ls -1 | head -n 3",
 *   owner: "session-7",
 *   workdir: "/",
 *   timeoutMs: 30_000,
 *   signal: turn.signal,
 * };
 * await using shell = createLocalShell();
 * const result = await shell.run(shell.resolve(request));
 * assert.equal(result.exitCode, 0);
 * assert.equal(result.stdout.text.split("\n").length, 4); // three lines
 * ```
 */
export interface ShellExecRequest {
  /**
   * The command line, run as `<shell> -c <command>`; with `args`, the
   * program to run (a name looked up on the child's `PATH`, or a path).
   * Must not be empty.
   */
  command: string;
  /**
   * The argv form: run `command` as a program, without a shell, with exactly
   * these arguments (spaces, quotes, `$`, `*` and newlines reach it as they
   * are). The model-facing tool never sets it.
   */
  args?: string[];
  /**
   * Who owns the work. Required, but may be `null` for explicitly unowned
   * work, so a forgotten owner can never silently create a task everyone
   * can read.
   */
  owner: string | null;
  /** Working directory; relative paths resolve against the shell's workdir. */
  workdir?: string;
  /** Foreground timeout in ms; positive and finite, capped at `maxTimeoutMs`. */
  timeoutMs?: number;
  /** In-memory budget for stdout in bytes; trusted callers raise it. */
  stdoutMaxBytes?: number;
  /** Aborts the command: its whole process group is terminated. */
  signal?: AbortSignal;
  /** Bytes for the command's stdin (trusted callers only). */
  stdin?: string | Uint8Array;
  /** Environment entries merged after the scrub (trusted callers only). */
  env?: EnvPatch;
  /** The managed channel: merged last, so it always wins. */
  dshEnv?: DshEnv;
  /**
   * `false` runs this one request outside the shell's sandbox (trusted
   * callers only; the model-facing tool never sets it). Nothing else is
   * accepted: a request cannot loosen or change the shell's policy.
   */
  sandbox?: false;
  /**
   * Runs the command on a pseudo-terminal that is its controlling terminal,
   * of `columns` × `rows` (default 80 × 24): stdin, stdout and stderr are the
   * terminal, so everything it prints is stdout and stderr stays empty;
   * `TERM` is `xterm-256color` unless `env` sets it. On `start()` the task's
   * input stays open (`write()`, `closeStdin()`, `resize()`).
   */
  tty?: boolean | { columns?: number; rows?: number };
  /** For `start()`: the task's stdin stays a pipe open for `write()` until `closeStdin()`; `stdin` is written first. */
  keepStdin?: boolean;
}

/**
 * A validated, defaulted and capped request: what `run()` acts on.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellExecSpec } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell({ workdir: "/tmp", timeoutMs: 10_000, maxTimeoutMs: 60_000 });
 * const spec: ShellExecSpec = shell.resolve({ command: "pwd", owner: null, timeoutMs: 90_000 });
 * assert.equal(spec.workdir, "/tmp");
 * assert.equal(spec.timeoutMs, 60_000); // capped at maxTimeoutMs
 * assert.equal(spec.stdoutMaxBytes, 64_000); // the default budget
 * const result = await shell.run(spec);
 * assert.equal(result.stdout.text, "/tmp\n");
 * ```
 */
export interface ShellExecSpec {
  /** The command line, run as `<shell> -c <command>`; with `args`, the program. */
  command: string;
  /** The argv form's arguments; absent means a command line run by the shell. */
  args?: string[];
  /** Absolute working directory. */
  workdir: string;
  /** Effective timeout in ms. */
  timeoutMs: number;
  /** In-memory budget for stdout in bytes. */
  stdoutMaxBytes: number;
  /** Owner of the work, or `null` for unowned. */
  owner: string | null;
  /** Aborts the command; absent means none. */
  signal?: AbortSignal;
  /** Bytes for stdin; absent means fd 0 is `/dev/null`. */
  stdin?: string | Uint8Array;
  /** Environment entries merged after the scrub. */
  env?: EnvPatch;
  /** The managed channel, merged last. */
  dshEnv?: DshEnv;
  /** `false`: run outside the shell's sandbox; absent means the shell's own setting. */
  sandbox?: false;
  /** On a pseudo-terminal, of this size (80 × 24 where a side is not given); absent or `false` means pipes. */
  tty?: boolean | { columns?: number; rows?: number };
  /** The task's stdin stays open for `write()` (implied by `tty`). */
  keepStdin?: boolean;
}

/**
 * The options of {@linkcode Shell.exec}: every field of a request but
 * `command`, with `owner` optional (default `null`: unowned), and the
 * observer's callbacks.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellExecOptions } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const options: ShellExecOptions = { args: ["-c", "echo $0 $1", "argv", "form"], timeoutMs: 5_000 };
 * await using shell = createLocalShell();
 * const result = await shell.exec("sh", options);
 * assert.equal(result.stdout.text, "argv form\n");
 * ```
 */
export interface ShellExecOptions extends Omit<ShellExecRequest, "command" | "owner">, ShellObserver {
  /** Who owns the work; default `null` (unowned). */
  owner?: string | null;
}

/**
 * Options of {@linkcode createLocalShell}; every one is optional.
 *
 * @example
 * ```ts
 * import { createLocalShell, type LocalShellOptions } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const options: LocalShellOptions = {
 *   workdir: "/tmp",
 *   timeoutMs: 30_000,
 *   maxOutputBytes: 16_000,
 *   ambientEnv: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/tmp" },
 *   maxTasksPerOwner: 4,
 * };
 * await using shell = createLocalShell(options);
 * const result = await shell.run(shell.resolve({ command: 'echo "$HOME"', owner: null }));
 * assert.equal(result.stdout.text, "/tmp\n");
 * ```
 */
export interface LocalShellOptions {
  /** Default working directory (default: the process cwd at creation). */
  workdir?: string;
  /** Default foreground timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** Cap on any requested timeout in ms (default 600 000). */
  maxTimeoutMs?: number;
  /** In-memory budget per stream in bytes (default 64 000). */
  maxOutputBytes?: number;
  /** Cap on one stream's spill file in bytes (default 64 MiB); 0 keeps no spill file at all. */
  maxSpillBytes?: number;
  /** Where spill files go (default: a private 0700 directory under the OS temp dir). */
  spillDir?: string;
  /** SIGTERM→SIGKILL delay, and the bound on draining pipes after exit (default 3 000). */
  graceMs?: number;
  /** The program run as `<shell> -c <command>` (default `bash`). */
  shell?: string;
  /** The environment the scrub starts from (default: the process environment, read at each spawn). */
  ambientEnv?: Record<string, string | undefined>;
  /** Running background tasks per owner (default 10). */
  maxTasksPerOwner?: number;
  /** Finished tasks kept readable (default 100). */
  maxFinishedTasks?: number;
  /**
   * The most a session's command may leave as its state (its directory and
   * exported environment), in bytes (default 1 MiB): a larger state is
   * refused, never read, and the session stays as it was (`sessionNote`).
   */
  maxSessionStateBytes?: number;
  /**
   * The process adapter (default: chosen by runtime). With `createShell`
   * it must be the engine's own adapter (another one is a `ShellSpecError`),
   * and a remote engine refuses it.
   */
  adapter?: ProcessAdapter;
  /**
   * Run every command of the shell in a kernel sandbox (Linux, bubblewrap):
   * `false` (the default) for none, or the policy. See `docs/sandbox.md`.
   */
  sandbox?: false | SandboxPolicy;
}

/**
 * A shell: validates requests and runs commands in their own process
 * groups, with a scrubbed environment and bounded output.
 *
 * @example
 * ```ts
 * import { createLocalShell, type Shell } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const shell: Shell = createLocalShell();
 * const task = shell.start(shell.resolve({ command: "sleep 60", owner: "session-7" }));
 * try {
 *   const result = await shell.run(shell.resolve({ command: "echo hi", owner: "session-7" }));
 *   assert.equal(result.stdout.text, "hi\n");
 *   assert.ok(shell.tasks("session-7").includes(task));
 * } finally {
 *   await shell.close(); // ends the sleep's whole process group
 * }
 * assert.equal(task.status, "killed");
 * ```
 */
export interface Shell {
  /** Validates `request`, applies defaults and caps, and returns the spec. Throws `ShellSpecError`. */
  resolve(request: ShellExecRequest): ShellExecSpec;
  /**
   * Runs `spec` in the foreground. Resolves for every process outcome;
   * rejects only with `ShellSpecError`, `ShellSpawnError`,
   * `ShellClosedError`, or the reason of an already-aborted signal.
   */
  run(spec: ShellExecSpec, observer?: ShellObserver): Promise<ShellRunResult>;
  /**
   * Starts `spec` in the background and returns at once. No timeout applies
   * (`timeoutMs` is ignored); the signal does. Throws `ShellSpecError`,
   * `ShellClosedError`, `TaskLimitError`, or an already-aborted signal's
   * reason; a spawn failure settles the task as `killed`.
   */
  start(spec: ShellExecSpec, observer?: ShellObserver): ShellTask;
  /**
   * `resolve()` and `run()` in one call, for trusted callers: `command` is a
   * command line, or the program when `options.args` is given; `owner`
   * defaults to `null`; `onStdout`/`onStderr` observe the output. Same
   * errors as `resolve()` and `run()`.
   */
  exec(command: string, options?: ShellExecOptions): Promise<ShellRunResult>;
  /**
   * The task `id` when it is unowned or owned by `owner`; otherwise, and for
   * unknown ids, throws `TaskAccessError` with one and the same message.
   */
  task(id: string, owner: string | null): ShellTask;
  /** Exactly the tasks that `task(id, owner)` would return, oldest first. */
  tasks(owner: string | null): ShellTask[];
  /**
   * A session of this shell: commands that start where the ones before
   * them left off (directory and exported variables). Throws
   * `ShellSpecError` naming a bad option, `ShellClosedError` once closed.
   */
  session(options: ShellSessionOptions): ShellSession;
  /**
   * Ends every command in flight (runs resolve with `aborted: true`, tasks
   * become `killed`) and every surviving group, waits until their groups are
   * gone, and refuses new work. Idempotent.
   */
  close(): Promise<void>;
  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
  /**
   * The events of this shell's commands (start, end, error), for an audit
   * log or a tracer (`@dsh/shell/otel`); free while nobody subscribes.
   */
  readonly events: ShellEvents;
  /**
   * The files `owner`'s commands see, read and written where they run
   * (under the sandbox, on the engine): {@linkcode ShellFiles}. Throws
   * `ShellSpecError` for a bad owner, `ShellClosedError` once closed.
   */
  files(options: { owner: string | null }): ShellFiles;
}

/**
 * Options of {@linkcode Shell.session}.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellSessionOptions } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const options: ShellSessionOptions = { owner: "agent-1", workdir: "/usr", env: { MODE: "dev" } };
 * await using session = shell.session(options);
 * const result = await session.exec('pwd; echo "$MODE"');
 * assert.equal(result.stdout.text, "/usr\ndev\n");
 * ```
 */
export interface ShellSessionOptions {
  /** Who owns the session's commands and tasks, as on requests (`null`: unowned). */
  owner: string | null;
  /** Where the first command starts: absolute, or relative to the shell's workdir (default the shell's). */
  workdir?: string;
  /** The session's first variables (a trusted caller's, like a request's `env`; `undefined` removes one). */
  env?: EnvPatch;
  /**
   * `false`: every command of the session runs outside the shell's sandbox
   * (trusted code's session). Absent: the shell's setting. Fixed at
   * creation: a call whose `sandbox` option differs is a `ShellSpecError`
   * naming `sandbox`, so what a sandboxed command exported never reaches an
   * unsandboxed one.
   */
  sandbox?: false;
}

/**
 * The options of a session's command: those of `shell.exec()`
 * but `owner` (the session's). A relative `workdir` is taken from the
 * session's directory.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellSessionExecOptions } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell({ workdir: "/" });
 * await using session = shell.session({ owner: null });
 * const options: ShellSessionExecOptions = { workdir: "usr", env: { ONCE: "1" }, timeoutMs: 5_000 };
 * assert.equal((await session.exec('pwd; echo "$ONCE"', options)).stdout.text, "/usr\n1\n");
 * assert.equal(session.env.ONCE, undefined); // this command's env was not exported by it
 * ```
 */
export type ShellSessionExecOptions = Omit<ShellExecOptions, "owner">;

/**
 * A shell that remembers: after a command line **exits** (any exit code),
 * the session takes the directory it ended in and every exported variable
 * it added, changed or unset; a command that was killed (timeout, abort,
 * signal, `close()`) changes nothing. Commands run one at a time, in call
 * order. See `docs/sessions.md`.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellSession } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell({ workdir: "/" });
 * const session: ShellSession = shell.session({ owner: "agent-1" });
 * await session.exec("cd usr && export MODE=dev");
 * const result = await session.exec('pwd; echo "$MODE"');
 * assert.equal(result.stdout.text, "/usr\ndev\n");
 * assert.equal(session.cwd, "/usr");
 * assert.deepEqual(session.env, { MODE: "dev" });
 * await session.close(); // ends what it runs; the shell stays open
 * ```
 */
export interface ShellSession {
  /** The owner of every command and task of the session. */
  readonly owner: string | null;
  /** The absolute directory where the next command starts. */
  readonly cwd: string;
  /** The variables the session's commands exported, changed or unset (an unset one: present, `undefined`). */
  readonly env: Readonly<EnvPatch>;
  /**
   * Runs `command` from the session's state, after the commands called
   * before it, as `shell.exec()` does; then takes the state it
   * left, if it exited. Rejects as `exec` does, and with
   * `ShellClosedError` once the session is closed.
   */
  exec(command: string, options?: ShellSessionExecOptions): Promise<ShellRunResult>;
  /**
   * Starts `command` as a background task of the session's owner, from the
   * session's state as it is now; the task never changes the session.
   * Throws as `shell.start()` does.
   */
  start(command: string, options?: ShellSessionExecOptions): ShellTask;
  /**
   * For trusted code: forgets what the session carries for each of `names`
   * (a value a command exported, or its unset), from the next command on:
   * that command gets the name as a plain `shell.exec()` would. Throws
   * `ShellSpecError` for a name that is no string, `ShellClosedError` once
   * closed.
   *
   * @example
   * ```ts
   * import { createLocalShell } from "@dsh/shell";
   * import assert from "node:assert/strict";
   * await using shell = createLocalShell({ workdir: "/" });
   * await using session = shell.session({ owner: null });
   * await session.exec("export TOKEN=secret MODE=dev");
   * session.unset("TOKEN");
   * assert.deepEqual(session.env, { MODE: "dev" });
   * assert.equal((await session.exec('echo "${TOKEN-gone}"')).stdout.text, "gone\n");
   * ```
   */
  unset(...names: string[]): void;
  /**
   * For trusted code: returns the session to its state at creation (its
   * `workdir` and `env`), from the next command on. Throws
   * `ShellClosedError` once closed.
   *
   * @example
   * ```ts
   * import { createLocalShell } from "@dsh/shell";
   * import assert from "node:assert/strict";
   * await using shell = createLocalShell({ workdir: "/" });
   * await using session = shell.session({ owner: null, env: { SEED: "1" } });
   * await session.exec("cd /usr && export MODE=dev");
   * session.reset();
   * assert.equal(session.cwd, "/");
   * assert.deepEqual(session.env, { SEED: "1" });
   * ```
   */
  reset(): void;
  /** Ends the command it runs and the tasks it started, and refuses new work; the shell stays open. Idempotent. */
  close(): Promise<void>;
  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}
