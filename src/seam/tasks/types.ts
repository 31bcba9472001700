/**
 * The shapes of a background task: the task itself ({@linkcode ShellTask},
 * implemented by `task.ts`), where it is ({@linkcode TaskStatus}), what a read
 * returns ({@linkcode TaskOutput}) and how a wait for output goes
 * ({@linkcode WaitForOutputOptions}, {@linkcode TaskOutputWait},
 * `wait_for_output.ts`). Re-exported by `../types.ts`, the root's source.
 *
 * @module
 */

import type { ShellEngineError, ShellSandboxError, ShellSpawnError } from "../errors.ts";
import type { ShellRunResult } from "../settle/types.ts";

/**
 * Where a background task is: running, ended by itself, or ended by us.
 *
 * @example
 * ```ts
 * import { createLocalShell, type TaskStatus } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const task = shell.start(shell.resolve({ command: "sleep 60", owner: null }));
 * const before: TaskStatus = task.status;
 * task.kill();
 * await task.done;
 * assert.equal(before, "running");
 * assert.equal(task.status, "killed");
 * ```
 */
export type TaskStatus = "running" | "completed" | "killed";

/**
 * What {@linkcode ShellTask.read} returns: each stream's output since the previous read.
 *
 * @example
 * ```ts
 * import { createLocalShell, type TaskOutput } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const task = shell.start(shell.resolve({ command: "echo one; echo oops >&2; echo two", owner: null }));
 * await task.done;
 * const output: TaskOutput = task.read();
 * assert.deepEqual(output, { stdout: "one\ntwo\n", stderr: "oops\n", lossy: false });
 * assert.equal(task.read().stdout, ""); // already read
 * ```
 */
export interface TaskOutput {
  /** New stdout text since the previous read. */
  stdout: string;
  /** New stderr text since the previous read. */
  stderr: string;
  /**
   * True when unread bytes fell out of memory before this read: the text is
   * then the newest output held, and the spill paths point at the full streams.
   */
  lossy: boolean;
  /** The stdout spill file, when this read was lossy on stdout and the file exists. */
  stdoutSpillPath?: string;
  /** The stderr spill file, when this read was lossy on stderr and the file exists. */
  stderrSpillPath?: string;
}

/** What {@linkcode ShellTask.waitForOutput} saw first. */
export type TaskOutputWait = "output" | "ended" | "timeout";

/**
 * How long {@linkcode ShellTask.waitForOutput} waits.
 *
 * @example
 * ```ts
 * import { createLocalShell, type WaitForOutputOptions } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const task = shell.start(shell.resolve({ command: "sleep 5", owner: null }));
 * const options: WaitForOutputOptions = { timeoutMs: 50 };
 * assert.equal(await task.waitForOutput(options), "timeout");
 * ```
 */
export interface WaitForOutputOptions {
  /** Aborting it rejects the wait with its reason (the task goes on). */
  signal?: AbortSignal;
  /** Resolve `"timeout"` after this many ms; positive, finite; absent means no limit. */
  timeoutMs?: number;
}

/**
 * A command running (or finished) in the background.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellTask } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const started: ShellTask = shell.start(shell.resolve({ command: "sleep 0.2; echo built", owner: "session-7" }));
 * // Later, e.g. in another tool call: look the task up by id, as its owner.
 * const task = shell.task(started.id, "session-7");
 * const result = await task.done;
 * assert.equal(task.status, "completed");
 * assert.equal(result.exitCode, 0);
 * assert.equal(task.read().stdout, "built\n");
 * ```
 */
export interface ShellTask {
  /** The task's id, unique within its shell. */
  readonly id: string;
  /** The task's owner, or `null` when unowned (readable by everyone). */
  readonly owner: string | null;
  /**
   * The leader's pid (also its process group id), or -1 when the spawn
   * failed. On a remote engine: the leader's pid on the engine's side (in
   * its pid namespace: never signal it from here), 0 until the command has
   * started there.
   */
  readonly pid: number;
  /**
   * Why the command never started, when it did not: the same
   * `ShellSpawnError` that `run()` would reject with (the workdir or the
   * program is missing; its text is also the task's stderr), the
   * `ShellSandboxError` of a sandbox that could not start it, or on a remote
   * engine the `ShellEngineError` of an engine that could not start it or
   * lost it while it ran (known once the task has ended). A failure the
   * library did not foresee is the `cause` of a `ShellSpawnError` ("the
   * command could not be run: …"), never labelled the sandbox's.
   */
  readonly spawnError?: ShellSpawnError | ShellSandboxError | ShellEngineError;
  /** `running`, then `completed` (it ended by itself) or `killed` (we ended it, or it never started). */
  readonly status: TaskStatus;
  /** The exit code once ended by an exit, else `null`. */
  readonly exitCode: number | null;
  /** The terminating signal once ended by one, else `null`. */
  readonly signal: string | null;
  /** Settles with the full result when the task ends; never rejects. */
  readonly done: Promise<ShellRunResult>;
  /** Consumes and returns each stream's output since the previous read; works after the end too. */
  read(): TaskOutput;
  /**
   * Starts termination of the task's whole session (SIGTERM to every group, SIGKILL `graceMs` later): true if this
   * call began it. While the task runs, also once its leader has exited and only a backgrounded child keeps its output
   * open, the task then ends `killed`. After the task has ended, it ends what the command left running, if anything
   * (the result stays as it was). False when termination was already under way or nothing of the task runs.
   */
  kill(): boolean;
  /**
   * Waits until there is output to read (`"output"`, at once if there
   * already is), the task has ended with nothing left unread (`"ended"`),
   * or `timeoutMs` has passed (`"timeout"`); rejects with the signal's
   * reason when it aborts. It reads nothing: call `read()` next.
   */
  waitForOutput(options?: WaitForOutputOptions): Promise<TaskOutputWait>;
  /**
   * Writes `data` (a string as UTF-8) to the task's stdin, after what was
   * written before; settles once it is handed to the OS. On a terminal it
   * is typed: `"\r"` is Enter, `"\x03"` interrupts the foreground program
   * as Ctrl-C does. Rejects with `TaskAccessError` when the task was started
   * without `keepStdin` or `tty`, its input was closed, or it has ended.
   */
  write(data: string | Uint8Array): Promise<void>;
  /**
   * Ends the task's input: end of file on a pipe, the terminal's
   * end-of-file character (Ctrl-D) on a terminal. Later writes are refused.
   * Throws `TaskAccessError` when the input is not open (as `write`).
   */
  closeStdin(): void;
  /**
   * Changes the size of the task's terminal; the program gets `SIGWINCH`.
   * Throws `TaskAccessError` when the task has no terminal or has ended, and
   * `ShellSpecError` when a side is not a whole number from 1 to 65 535.
   */
  resize(columns: number, rows: number): void;
}
