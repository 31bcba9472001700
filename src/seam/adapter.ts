/**
 * The contract between the runtime-neutral seam and a runtime adapter.
 * An adapter translates one runtime's process primitives into this shape
 * and nothing more: everything that can be shared lives in the seam.
 *
 * @module
 */

/**
 * The signals the seam sends to a process group; `0` only probes.
 *
 * @example
 * ```ts
 * import type { GroupSignal, ProcessAdapter } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * // SIGTERM, then SIGKILL if group `pgid` is still there after `graceMs`.
 * async function endGroup(adapter: ProcessAdapter, pgid: number, graceMs: number): Promise<GroupSignal | "gone"> {
 *   if (!adapter.signalGroup(pgid, "SIGTERM")) return "gone";
 *   await new Promise((resolve) => setTimeout(resolve, graceMs));
 *   if (!adapter.signalGroup(pgid, 0)) return "SIGTERM";
 *   adapter.signalGroup(pgid, "SIGKILL");
 *   return "SIGKILL";
 * }
 * const child = nodeAdapter.spawn({
 *   program: "/bin/sh",
 *   args: ["-c", "sleep 60"],
 *   cwd: "/",
 *   env: { PATH: "/usr/bin:/bin" },
 *   onStdout: () => {},
 *   onStderr: () => {},
 * });
 * await endGroup(nodeAdapter, child.pid, 100);
 * assert.equal((await child.exited).signal, "SIGTERM"); // sleep heeds SIGTERM: no SIGKILL needed
 * ```
 */
export type GroupSignal = "SIGTERM" | "SIGKILL" | 0;

/**
 * What the seam asks an adapter to start.
 *
 * @example
 * ```ts
 * import type { SpawnRequest } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * const decoder = new TextDecoder();
 * let stdout = "";
 * const request: SpawnRequest = {
 *   program: "/bin/sh",
 *   args: ["-c", "cat; echo done"],
 *   cwd: "/tmp",
 *   env: { PATH: "/usr/bin:/bin" },
 *   stdin: new TextEncoder().encode("input "),
 *   onStdout: (chunk) => void (stdout += decoder.decode(chunk, { stream: true })),
 *   onStderr: () => {},
 * };
 * const child = nodeAdapter.spawn(request);
 * await Promise.all([child.exited, child.drained]);
 * assert.equal(stdout, "input done\n");
 * ```
 */
export interface SpawnRequest {
  /**
   * The program: a path, or a name looked up on the child's `PATH` as
   * `execvp` does. For a command line it is the shell (`bash`), run with
   * `["-c", command]`.
   */
  program: string;
  /** The arguments after the program name, each passed exactly as it is (no shell, no quoting). */
  args: readonly string[];
  /** Absolute working directory, already checked to exist. */
  cwd: string;
  /** The complete child environment; nothing else may be inherited. */
  env: Record<string, string>;
  /**
   * Bytes for stdin. When present, fd 0 is a pipe that receives them and is
   * then closed (`EPIPE` is ignored); when absent, fd 0 is `/dev/null`.
   */
  stdin?: Uint8Array;
  /**
   * Keeps fd 0 a pipe that stays open after `stdin` is written: the
   * handle's `input` writes to it and ends it. Implied by `terminal`.
   */
  keepStdin?: boolean;
  /**
   * Runs the program on a new pseudo-terminal of this size, its controlling
   * terminal: fds 0, 1 and 2 are the terminal's other end, everything it
   * prints arrives through `onStdout` (`onStderr` is never called), `stdin`
   * is typed into the terminal first, and the handle has `input` and
   * `resize`. The program still leads a new session, whose id is its pid.
   */
  terminal?: TerminalSize;
  /**
   * Receives each stdout chunk. The chunk is only valid during the call:
   * an adapter may reuse its memory afterwards.
   */
  onStdout(chunk: Uint8Array): void;
  /** Receives each stderr chunk, under the same rule as `onStdout`. */
  onStderr(chunk: Uint8Array): void;
}

/**
 * How a child ended.
 *
 * @example
 * ```ts
 * import type { ChildExit } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * const child = nodeAdapter.spawn({
 *   program: "/bin/sh",
 *   args: ["-c", "exit 3"],
 *   cwd: "/",
 *   env: {},
 *   onStdout: () => {},
 *   onStderr: () => {},
 * });
 * const exit: ChildExit = await child.exited;
 * assert.deepEqual(exit, { code: 3, signal: null });
 * ```
 */
export interface ChildExit {
  /** The exit code, or `null` when a signal ended it. */
  code: number | null;
  /** The terminating signal's name, or `null`. */
  signal: string | null;
}

/**
 * A started child: the leader of its own process group.
 *
 * @example
 * ```ts
 * import type { ChildHandle, ProcessAdapter } from "@dsh/shell/seam";
 * import { createShell } from "@dsh/shell";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * // A wrapping adapter that counts spawns and records how each child ended.
 * const exits: string[] = [];
 * const counting: ProcessAdapter = {
 *   name: "node+count",
 *   spawn(request) {
 *     const child: ChildHandle = nodeAdapter.spawn(request);
 *     child.exited.then(({ code, signal }) => exits.push(`${child.pid}: ${signal ?? code}`));
 *     return child;
 *   },
 *   signalGroup: (pgid, signal) => nodeAdapter.signalGroup(pgid, signal),
 *   onHostExit: (listener) => nodeAdapter.onHostExit(listener),
 *   spawnWatchdog: (script, env) => nodeAdapter.spawnWatchdog(script, env),
 * };
 * await using shell = createShell(counting);
 * await shell.run(shell.resolve({ command: "exit 4", owner: null }));
 * assert.equal(exits.length, 1);
 * assert.ok(exits[0].endsWith(": 4"));
 * ```
 */
export interface ChildHandle {
  /** The child's pid, which is also its process group id. */
  readonly pid: number;
  /** Settles when the child has exited (it never rejects). */
  readonly exited: Promise<ChildExit>;
  /** Settles when both stdout and stderr have reached end of file (it never rejects). */
  readonly drained: Promise<void>;
  /** Stops reading output and releases both pipes; idempotent. */
  releaseOutput(): void;
  /** The child's stdin, when the request kept it open (`keepStdin` or `terminal`). */
  readonly input?: ChildInput;
  /** Changes the terminal's size (the program gets `SIGWINCH`); present for a `terminal` request. */
  resize?(size: TerminalSize): void;
}

/**
 * The size of a pseudo-terminal, in character cells.
 *
 * @example
 * ```ts
 * import type { TerminalSize } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * const size: TerminalSize = { columns: 120, rows: 40 };
 * assert.equal(size.columns * size.rows, 4_800);
 * ```
 */
export interface TerminalSize {
  /** Columns, 1 to 65 535. */
  columns: number;
  /** Rows, 1 to 65 535. */
  rows: number;
}

/**
 * The open stdin of a child (a pipe, or a terminal's input).
 *
 * @example
 * ```ts
 * import type { ChildInput } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * let stdout = "";
 * const child = nodeAdapter.spawn({
 *   program: "/bin/cat",
 *   args: [],
 *   cwd: "/",
 *   env: {},
 *   keepStdin: true,
 *   onStdout: (chunk) => void (stdout += new TextDecoder().decode(chunk)),
 *   onStderr: () => {},
 * });
 * const input: ChildInput = child.input!;
 * await input.write(new TextEncoder().encode("typed\n"));
 * input.end(); // cat sees end of file and exits
 * await Promise.all([child.exited, child.drained]);
 * assert.equal(stdout, "typed\n");
 * ```
 */
export interface ChildInput {
  /**
   * Writes `bytes`, in order after earlier writes; settles once they are
   * handed to the OS. A child that stopped reading (a broken pipe) does not
   * make it reject: the exit tells.
   */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Ends the input once what is queued is written: end of file on a pipe,
   * the terminal's end-of-file character (Ctrl-D) on a terminal. Idempotent.
   */
  end(): void;
}

/**
 * A long-lived helper process that watches its stdin pipe (the watchdog):
 * the host never writes to it, and its end of file says the host is gone
 * or done with it.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell";
 * import type { ProcessAdapter, WatchdogHandle } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * // A wrapping adapter that notes when the watchdog starts and when it exits.
 * const events: string[] = [];
 * const tracing: ProcessAdapter = {
 *   name: "node+trace",
 *   spawn: (request) => nodeAdapter.spawn(request),
 *   signalGroup: (pgid, signal) => nodeAdapter.signalGroup(pgid, signal),
 *   onHostExit: (listener) => nodeAdapter.onHostExit(listener),
 *   spawnWatchdog(script, env) {
 *     const inner: WatchdogHandle = nodeAdapter.spawnWatchdog(script, env);
 *     events.push("started");
 *     inner.exited.then(() => events.push("exited"));
 *     return inner;
 *   },
 * };
 * const shell = createShell(tracing);
 * assert.deepEqual(events, []); // not before the first command
 * await shell.run(shell.resolve({ command: "true", owner: null }));
 * assert.deepEqual(events, ["started"]);
 * await shell.close();
 * assert.deepEqual(events, ["started", "exited"]); // close() waits for it
 * ```
 */
export interface WatchdogHandle {
  /** The helper's pid; it leads its own session and process group. */
  readonly pid: number;
  /** Settles once the helper has exited and been reaped (it never rejects). */
  readonly exited: Promise<void>;
  /** Closes the helper's stdin, which tells it to finish; idempotent. */
  close(): void;
}

/**
 * A runtime's way of starting process groups and signalling them.
 *
 * @example
 * ```ts
 * import type { ProcessAdapter } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * function describe(adapter: ProcessAdapter): string {
 *   return `spawning with ${adapter.name}`;
 * }
 * assert.equal(describe(nodeAdapter), "spawning with node");
 * ```
 */
export interface ProcessAdapter {
  /** A short name for messages, e.g. `"node"` or `"deno"`. */
  readonly name: string;
  /**
   * Starts `program` with `args` as the leader of a new process group
   * (a new session). Synchronous, so a background task knows its pid at
   * once. When the process cannot be created it throws its runtime's own
   * error (with the errno name as `code` where the runtime gives one); the
   * seam examines the program and words the `ShellSpawnError` itself, so
   * every adapter's failures read alike.
   */
  spawn(request: SpawnRequest): ChildHandle;
  /**
   * Sends `signal` to every process in group `pgid`. Returns false when the
   * group no longer exists (`ESRCH`), true otherwise.
   */
  signalGroup(pgid: number, signal: GroupSignal): boolean;
  /**
   * Calls `listener` synchronously when the host process ends normally
   * (end of the event loop, `process.exit()`, `Deno.exit()`).
   */
  onHostExit(listener: () => void): void;
  /**
   * Starts `/bin/sh -c <script>` in a new session with a stdin pipe, its
   * output discarded, with exactly `env`, and without holding the host's
   * event loop open: it outlives the host and learns of the host's death
   * from the pipe's end. Throws when it cannot start (the shell then runs
   * without a watchdog; the exit guard still covers normal exits).
   */
  spawnWatchdog(script: string, env: Record<string, string>): WatchdogHandle;
  /**
   * Runs `program` to its end, synchronously, as the leader of a new
   * session, with exactly `env`, stdin and stdout discarded, and returns how
   * it ended and its stderr. Used once per sandboxed shell, to set the
   * sandbox up for real before any command runs. Optional: an adapter
   * without it cannot run a sandboxed shell.
   */
  probe?(request: ProbeRequest): ProbeOutcome;
  /**
   * Starts `program` with `args` as the leader of a new session, with
   * exactly `env`, a stdin pipe the caller writes to for as long as it
   * likes, and its output handed over chunk by chunk. Neither the process
   * nor its pipes keep the host's event loop open. Used by remote engines
   * for the connection that supervises a shell's commands (`docker exec`,
   * the `ssh` control master). Throws its runtime's own error when the
   * process cannot be created. Optional: an adapter without it cannot run
   * the Docker or SSH engine.
   */
  spawnChannel?(request: ChannelRequest): ChannelHandle;
  /**
   * Reads the host process's whole environment in one call, as a new
   * object that the seam may keep (the same variables `process.env` holds);
   * only its own enumerable string keys are read, and it may have a null
   * prototype (Deno's has).
   * Optional: without it the seam reads `process.env`, which on Deno is one
   * call into the runtime to list the names and one more per value.
   */
  readEnvironment?(): Record<string, string>;
}

/**
 * What {@linkcode ProcessAdapter.spawnChannel} starts.
 *
 * @example
 * ```ts
 * import type { ChannelRequest } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * let answer = "";
 * const request: ChannelRequest = {
 *   program: "/bin/sh",
 *   args: ["-c", "while read -r line; do echo \"got $line\"; done"],
 *   cwd: "/",
 *   env: {},
 *   onStdout: (chunk) => void (answer += new TextDecoder().decode(chunk)),
 *   onStderr: () => {},
 * };
 * // A channel does not keep the event loop open: whoever awaits it must.
 * const keepOpen = setInterval(() => {}, 1_000);
 * const channel = nodeAdapter.spawnChannel!(request);
 * channel.write(new TextEncoder().encode("one\n"));
 * channel.end();
 * await Promise.all([channel.exited, channel.drained]);
 * clearInterval(keepOpen);
 * assert.equal(answer, "got one\n");
 * ```
 */
export interface ChannelRequest {
  /** The program, a path or a name on `env.PATH`. */
  program: string;
  /** Its arguments, each passed exactly as it is. */
  args: readonly string[];
  /** The working directory. */
  cwd: string;
  /** The complete environment; nothing else is inherited. */
  env: Record<string, string>;
  /** Receives each stdout chunk; the chunk is only valid during the call. */
  onStdout(chunk: Uint8Array): void;
  /** Receives each stderr chunk, under the same rule. */
  onStderr(chunk: Uint8Array): void;
}

/**
 * A started channel: a process whose stdin stays open for writing.
 *
 * @example
 * ```ts
 * import type { ChannelHandle } from "@dsh/shell/seam";
 * import { denoAdapter } from "@dsh/shell/deno";
 * import assert from "node:assert/strict";
 * const keepOpen = setInterval(() => {}, 1_000); // the channel itself does not
 * const channel: ChannelHandle = denoAdapter.spawnChannel!({
 *   program: "/bin/sh",
 *   args: ["-c", "read -r line; exit $line"],
 *   cwd: "/",
 *   env: {},
 *   onStdout: () => {},
 *   onStderr: () => {},
 * });
 * channel.write(new TextEncoder().encode("5\n"));
 * assert.deepEqual(await channel.exited, { code: 5, signal: null });
 * clearInterval(keepOpen);
 * channel.end(); // idempotent, also after the exit
 * ```
 */
export interface ChannelHandle {
  /** The process's pid, which is also its session's and process group's id. */
  readonly pid: number;
  /** Settles when the process has exited (it never rejects). */
  readonly exited: Promise<ChildExit>;
  /** Settles when both stdout and stderr have reached end of file (it never rejects). */
  readonly drained: Promise<void>;
  /** Queues `bytes` for its stdin, in order; a broken pipe is ignored (the exit tells). */
  write(bytes: Uint8Array): void;
  /** Closes its stdin once what is queued is written; idempotent. */
  end(): void;
}

/**
 * What {@linkcode ProcessAdapter.probe} runs.
 *
 * @example
 * ```ts
 * import type { ProbeRequest } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * const request: ProbeRequest = { program: "/bin/sh", args: ["-c", "echo oops >&2; exit 3"], cwd: "/", env: {} };
 * const outcome = nodeAdapter.probe!(request);
 * assert.deepEqual(outcome, { code: 3, signal: null, stderr: "oops\n" });
 * ```
 */
export interface ProbeRequest {
  /** The program, a path or a name on `env.PATH`. */
  program: string;
  /** Its arguments. */
  args: readonly string[];
  /** The working directory. */
  cwd: string;
  /** The complete environment. */
  env: Record<string, string>;
}

/**
 * How a probe ended.
 *
 * @example
 * ```ts
 * import type { ProbeOutcome } from "@dsh/shell/seam";
 * import { denoAdapter } from "@dsh/shell/deno";
 * import assert from "node:assert/strict";
 * const outcome: ProbeOutcome = denoAdapter.probe!({ program: "/bin/true", args: [], cwd: "/", env: {} });
 * assert.equal(outcome.code, 0);
 * ```
 */
export interface ProbeOutcome {
  /** The exit code, or `null` when a signal ended it. */
  code: number | null;
  /** The terminating signal's name, or `null`. */
  signal: string | null;
  /** Everything it wrote to stderr. */
  stderr: string;
}
