/**
 * Where a command runs, as the one launch pipeline (`launch/launch.ts`)
 * sees it: the local process group (`spawn/process_group.ts`) or a remote
 * link (`remote/command.ts`). A transport starts a command, terminates its
 * whole session when the deadline fires, waits for its end and says what
 * that end means. Everything else — the collectors and output events, the
 * deadline, the result, `stop()`, a session's state and the open stdin as
 * the caller sees them — is the pipeline's, the same for every transport.
 *
 * What wraps a command's request (a session's trap, the terminal, the
 * sandbox) is the other contract, `wrapper.ts`: each transport builds the
 * request and applies its wrappers, the local one to spawn what they made,
 * the remote one to send it.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import type { ChildInput, TerminalSize } from "./adapter.ts";
import type { TakenState } from "./carry/state.ts";
import type { ResultFields } from "./settle/types.ts";
import type { Deadline, StopCause } from "./terminate/deadline.ts";
import type { ShellExecSpec, ShellRunResult } from "./types.ts";

/** Where a shell's commands run. */
export interface Transport {
  /** The directory where the spill files of `owner`'s commands go, created on first use. */
  spillDirectory(owner: string | null): string;
  /**
   * Starts one command. Throws what a command that cannot start at all
   * throws at once (a `ShellSpawnError`, a `ShellSpecError`); every later
   * outcome is read through the returned {@linkcode Running}.
   */
  start(command: CommandStart): Running;
}

/** One command, as the pipeline hands it to a transport. */
export interface CommandStart {
  /** The checked spec. */
  readonly spec: ShellExecSpec;
  /** A session's command line: it leaves its state, read by {@linkcode Running.state} once settled. */
  readonly carry: boolean;
  /** Where the command's stdout goes, chunk by chunk (the pipeline's collector and events). */
  readonly stdout: (chunk: Uint8Array) => void;
  /** Where its stderr goes. */
  readonly stderr: (chunk: Uint8Array) => void;
}

/** How a command ended, as its result reports it. */
export interface CommandExit {
  /** Its exit status, or null when a signal ended it (or it never ran). */
  readonly exitCode: number | null;
  /** The signal that ended it, or null. */
  readonly signal: string | null;
}

/** A command a transport started. */
export interface Running {
  /** Its session's id (the leader's pid); on a remote engine 0 until it has started there. */
  readonly pid: number;
  /** Its open stdin, when the spec kept it open (`keepStdin`, `tty`). */
  readonly input?: ChildInput;
  /** Changes the size of its terminal, when it runs on one. */
  readonly resize?: (size: TerminalSize) => void;
  /**
   * Settles when its timeout starts to count (a remote command's, once its
   * connection has answered); absent, it counts from the start.
   */
  readonly counting?: Promise<unknown>;
  /**
   * The deadline fired: ends the command's whole session, the first signal
   * now (one that has not started yet is ended as it starts, or never
   * started).
   */
  terminate(): void;
  /**
   * Resolves once its end is known: the leader has exited and its output is
   * drained, the drain bounded by `graceMs` (`settle/drain.ts`). Rejects
   * with the transport's own error when the command could not be run.
   */
  exited(deadline: Deadline): Promise<void>;
  /**
   * What its end means, once the deadline is disposed (`cause` is what of
   * ours stopped it, if anything did); hands the session to the survivors.
   * Throws the transport's own error (an engine's refusal, a lost link).
   */
  interpret(cause: StopCause | undefined): CommandExit | Promise<CommandExit>;
  /**
   * Reads the result's fields, where something wrapped the command (a
   * sandbox that never ran it throws its error); returns what the wrapper
   * adds to the result, which `settle/result.ts` puts on it.
   */
  ended?(result: Readonly<ShellRunResult>): ResultFields | void;
  /**
   * Once settled: starts ending what the command left running; false when
   * nothing of its session runs (or it has not settled yet).
   */
  endSurvivors(): boolean;
  /** For a command started with `carry`, once settled: the state it left when it exited, read once. */
  state?(): Promise<TakenState>;
}
