/**
 * The contract between a shell and the engine its commands run on: this
 * machine (a {@linkcode LocalEngine}, over a `ProcessAdapter`) or a remote
 * one (a {@linkcode RemoteEngine}: a container, another host).
 *
 * A remote engine only has to start two programs on its side and carry
 * their bytes: the shell's **supervisor** (one per connection, its stdin
 * kept open) and one **wrapper** per command. Both are POSIX `sh` scripts
 * the seam hands over as argv (`remote/scripts.ts`); they learn each
 * command's session id, scrub nothing (the environment is built here), and
 * kill whole sessions on the engine's side, so the engine itself needs no
 * notion of process groups. See `docs/engines.md` for how to add one.
 *
 * @module
 */

import type { ChildExit, ChildInput, ProcessAdapter, TerminalSize } from "./adapter.ts";

/**
 * Where a shell runs its commands: this machine, or a remote engine.
 *
 * @example
 * ```ts
 * import type { ShellEngine } from "@dsh/shell/engines";
 * import { localEngine } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * function describe(engine: ShellEngine): string {
 *   return engine.kind === "local" ? `here, with ${engine.adapter.name}` : `${engine.name} ${engine.target}`;
 * }
 * assert.match(describe(localEngine()), /^here, with (node|deno)$/);
 * ```
 */
export type ShellEngine = LocalEngine | RemoteEngine;

/**
 * This machine: commands are spawned by a {@linkcode ProcessAdapter}.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell";
 * import type { LocalEngine } from "@dsh/shell/engines";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * const engine: LocalEngine = { kind: "local", name: "local", adapter: nodeAdapter };
 * await using shell = createShell(engine);
 * assert.equal((await shell.exec("echo here")).stdout.text, "here\n");
 * ```
 */
export interface LocalEngine {
  /** Tells the two kinds of engine apart. */
  readonly kind: "local";
  /** `"local"`. */
  readonly name: string;
  /** The adapter that spawns and signals. */
  readonly adapter: ProcessAdapter;
}

/**
 * An engine that runs commands somewhere else: each shell {@linkcode connect}s
 * once (and again after a lost connection), and the link starts the shell's
 * supervisor and one wrapper per command there.
 *
 * @example
 * ```ts
 * // An engine whose "remote side" is this machine: each program runs here,
 * // in a session of its own, the way `docker exec` or sshd would start it.
 * import { createShell } from "@dsh/shell";
 * import type { EngineLink, RemoteEngine } from "@dsh/shell/engines";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * const env = { PATH: "/usr/bin:/bin", HOME: "/", API_TOKEN: "not for commands" };
 * const link: EngineLink = {
 *   supervise: ([program, ...args], output) => {
 *     const channel = nodeAdapter.spawnChannel!({ program, args, cwd: "/", env, ...output });
 *     return { ...channel, abandon: () => void nodeAdapter.signalGroup(channel.pid, "SIGKILL") };
 *   },
 *   run: ([program, ...args], stdin, output) => {
 *     const child = nodeAdapter.spawn({ program, args, cwd: "/", env, stdin, ...output });
 *     return { ...child, abandon: () => void nodeAdapter.signalGroup(child.pid, "SIGKILL") };
 *   },
 *   explain: (failure) => `ended with ${failure.code ?? failure.signal}: ${failure.stderr.trim()}`,
 *   dispose: () => {},
 * };
 * const here: RemoteEngine = { kind: "remote", name: "here", target: "this machine", connect: () => link };
 * await using shell = createShell(here, { workdir: "/tmp", shell: "sh" });
 * const result = await shell.exec('echo "$PWD ${API_TOKEN:-scrubbed}"');
 * assert.equal(result.stdout.text, "/tmp scrubbed\n");
 * ```
 */
export interface RemoteEngine {
  /** Tells the two kinds of engine apart. */
  readonly kind: "remote";
  /** The engine's name for messages and errors, e.g. `"docker"`. */
  readonly name: string;
  /** What it reaches, for messages and errors, e.g. `"container agent-7"`. */
  readonly target: string;
  /**
   * How long the engine's side waits without hearing from the shell (a
   * heartbeat goes every second) before it ends every session the shell
   * started: what catches a link that went silent without closing. This
   * side, in turn, counts the connection as lost after this long plus a
   * second without an answer. Default 3 000; 0 turns both off.
   */
  readonly heartbeatMs?: number;
  /** How long a new connection may take to answer before it counts as failed (default 15 000). */
  readonly connectTimeoutMs?: number;
  /**
   * A new link for one connection of one shell. Called when the shell needs
   * a connection: at its first command, and again after a connection was
   * lost. It should not block: the connection is made by the first program
   * the link starts ({@linkcode EngineLink.supervise}).
   */
  connect(): EngineLink;
}

/**
 * One connection of a remote engine: how the shell's programs are started
 * on the engine's side. The seam calls `supervise` once, waits until the
 * supervisor has answered, then `run` once per command, and `dispose` once
 * after the supervisor has ended.
 *
 * What each program must get on the engine's side: exactly `argv` (the
 * first element is the program, found on the engine's `PATH`), run by the
 * engine's default user, as the **leader of a new session** (`docker exec`,
 * sshd and a Kubernetes exec all do that; the wrapper refuses to run a
 * command otherwise), with its stdin, stdout and stderr carried byte for
 * byte, without a terminal. When the local end of the supervisor's stdin
 * closes or breaks (the host closed it, exited or died), its stdin on the
 * engine's side must reach end of file: that is how the supervisor knows
 * to end everything the shell started.
 *
 * @example
 * ```ts
 * import type { EngineFailure, EngineLink } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * // The part of a link that words failures: the client's own stderr says what happened.
 * const explain: EngineLink["explain"] = (failure: EngineFailure) =>
 *   /Connection refused/.test(failure.stderr) ? "connection refused" : `the client exited with ${failure.code}`;
 * assert.equal(explain({ code: 255, signal: null, stderr: "ssh: connect to host h port 22: Connection refused\n" }), "connection refused");
 * ```
 */
export interface EngineLink {
  /**
   * Starts the shell's supervisor: `argv` on the engine, its stdin kept
   * open for the seam's requests. Neither the local client nor its pipes
   * may keep the host's event loop open. Throws a `ShellEngineError` when
   * the local client cannot even be started (its CLI is missing).
   */
  supervise(argv: readonly string[], output: EngineOutput): EngineChannel;
  /**
   * Starts one command's wrapper: `argv` on the engine, `stdin` written to
   * it and then closed, or, with `options.keepStdin`, kept open for the
   * process's `input`. With `options.terminal` the local client runs on a
   * pseudo-terminal and asks the engine for one (`docker exec -t`,
   * `ssh -tt`): its output is one stream (`onStdout`) and its input is kept
   * open and typed. The engine's terminal gets its size from the wrapper
   * (`options.terminal`, before the command runs) and from the supervisor
   * (each resize), never from the client, which must send none: the
   * built-in links start it on a 0 × 0 terminal. Like a local child, it keeps the event loop open while it runs. Throws a `ShellEngineError` when the local client cannot
   * be started.
   */
  run(
    argv: readonly string[],
    stdin: Uint8Array,
    output: EngineOutput,
    options?: { readonly keepStdin?: boolean; readonly terminal?: TerminalSize },
  ): EngineProcess;
  /**
   * Words why a program of this link ended before the seam heard from it on
   * the engine's side, from its client's exit and stderr: `container
   * agent-7 is not running`, `connection refused`. The seam puts it in a
   * `ShellEngineError` after the engine's name and target.
   */
  explain(failure: EngineFailure): string;
  /**
   * Whether a program of this link that ended before the seam heard from
   * it on the engine's side was refused only for want of room on the
   * connection (sshd's `MaxSessions`): then, while other commands of the
   * shell hold sessions of it, the command waits for one of them to end
   * and is tried again, within its own timeout. Optional: without it such
   * a failure is a `ShellEngineError` at once.
   */
  busy?(failure: EngineFailure): boolean;
  /**
   * Whether this exit of a command's client can only have been sent by the
   * engine's side, as the wrapper's own exit status, and never made up by
   * the client because the connection went: then the seam takes it as the
   * command's status without first asking the supervisor's link whether it
   * is still up (one round trip fewer per command). ssh's multiplexed
   * client exits 255 unless its master handed it the session's
   * `exit-status`, so every other code is one. Optional: without it every
   * status waits for the supervisor's answer.
   */
  fromEngine?(exit: { readonly code: number | null; readonly signal: string | null }): boolean;
  /** Releases what the link holds on this machine (a control socket's directory). Called once, last. */
  dispose(): void;
}

/**
 * Where a program's output goes, chunk by chunk; a chunk is only valid
 * during the call.
 *
 * @example
 * ```ts
 * import type { EngineOutput } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * const chunks: string[] = [];
 * const output: EngineOutput = {
 *   onStdout: (chunk) => void chunks.push(new TextDecoder().decode(chunk)),
 *   onStderr: () => {},
 * };
 * output.onStdout(new TextEncoder().encode("hi"));
 * assert.deepEqual(chunks, ["hi"]);
 * ```
 */
export interface EngineOutput {
  /** Receives each stdout chunk. */
  onStdout(chunk: Uint8Array): void;
  /** Receives each stderr chunk. */
  onStderr(chunk: Uint8Array): void;
}

/**
 * A program started by {@linkcode EngineLink.run}, as seen from here: its
 * local client.
 *
 * @example
 * ```ts
 * import type { EngineProcess } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * // A program that has already ended, as a test double might model it.
 * const ended: EngineProcess = {
 *   exited: Promise.resolve({ code: 0, signal: null }),
 *   drained: Promise.resolve(),
 *   releaseOutput: () => {},
 *   abandon: () => {},
 * };
 * assert.deepEqual(await ended.exited, { code: 0, signal: null });
 * ```
 */
export interface EngineProcess {
  /** Settles when the local client has exited (it never rejects). */
  readonly exited: Promise<ChildExit>;
  /** Settles when both of its output streams have reached end of file (it never rejects). */
  readonly drained: Promise<void>;
  /** Stops reading its output and releases the pipes; idempotent. */
  releaseOutput(): void;
  /** Its stdin after `stdin`, when it was started with `keepStdin` or `terminal`. */
  readonly input?: ChildInput;
  /**
   * Ends the local client at once (SIGKILL), if it still runs. What it
   * started on the engine is not affected: the supervisor ends that.
   */
  abandon(): void;
}

/**
 * The supervisor's program, started by {@linkcode EngineLink.supervise}, as
 * seen from here: its local client, whose stdin stays open.
 *
 * @example
 * ```ts
 * import type { EngineChannel } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * const written: string[] = [];
 * const channel: EngineChannel = {
 *   exited: new Promise(() => {}),
 *   drained: new Promise(() => {}),
 *   abandon: () => {},
 *   write: (bytes) => void written.push(new TextDecoder().decode(bytes)),
 *   end: () => {},
 * };
 * channel.write(new TextEncoder().encode("p\n"));
 * assert.deepEqual(written, ["p\n"]);
 * ```
 */
export interface EngineChannel {
  /** Settles when the local client has exited (it never rejects). */
  readonly exited: Promise<ChildExit>;
  /** Settles when both of its output streams have reached end of file (it never rejects). */
  readonly drained: Promise<void>;
  /** Queues `bytes` for the program's stdin, in order; a broken pipe is ignored. */
  write(bytes: Uint8Array): void;
  /** Closes the program's stdin after what is queued; idempotent. */
  end(): void;
  /** Ends the local client at once (SIGKILL), if it still runs. */
  abandon(): void;
}

/**
 * How a program's local client ended before the seam heard from the
 * engine's side, for {@linkcode EngineLink.explain}.
 *
 * @example
 * ```ts
 * import type { EngineFailure } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * const failure: EngineFailure = { code: 1, signal: null, stderr: "Error: No such container: agent-7\n" };
 * assert.match(failure.stderr, /No such container/);
 * ```
 */
export interface EngineFailure {
  /** The client's exit code, or `null` when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it, or `null`. */
  readonly signal: string | null;
  /** What it wrote to stderr (its first 8 KiB). */
  readonly stderr: string;
}
