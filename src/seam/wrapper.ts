/**
 * What wraps a local command's spawn: the sandbox today, a pseudo-terminal
 * next. The launch builds the request; a wrapper may run it another way
 * (inside bubblewrap), and then has a say at two moments the launch does
 * not know the meaning of: just before the command's session is terminated
 * (what of the wrapper must be noted while it still runs), and when the
 * command has ended (a wrapper that never ran the command fails the run
 * with its own error; one that did may add to the result).
 *
 * @module
 */

import type { ChildExit, SpawnRequest } from "./adapter.ts";
import type { CommandSession } from "./session/session.ts";
import type { ShellExecSpec, ShellRunResult } from "./types.ts";

/**
 * The fd on which a wrapped session's command finds its state file open
 * (`carry/script.ts`), when the wrapper runs it where the file's path is
 * not writable.
 */
export const STATE_FD = 9;

/** A wrapper of the spawns of one shell. */
export interface SpawnWrapper {
  /** The program a command line runs with, where the wrapper resolved its own (an absolute path). */
  readonly shell?: string;
  /** Whether this command is wrapped (its spec may say it runs unwrapped). */
  wraps(spec: ShellExecSpec): boolean;
  /**
   * Wraps one command's `request`. With `stateFile`, the command must find
   * that file open for writing on {@linkcode STATE_FD}. May throw what a
   * command that cannot start at all throws.
   */
  wrap(request: SpawnRequest, spec: ShellExecSpec, stateFile?: string): WrappedCommand;
}

/** One wrapped command. */
export interface WrappedCommand {
  /** The request to spawn instead. */
  readonly request: SpawnRequest;
  /** The environment the command itself is given, where the wrapper changed it (its request's may be its own). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Called when the session's termination starts, before its first signal;
   * returns what must follow that termination once it has ended.
   */
  terminating(session: CommandSession): (ended: Promise<unknown>) => Promise<unknown>;
  /**
   * Reads how the wrapped command ended, once its result is built: throws
   * the wrapper's own error when the command never ran; otherwise may add
   * to `result`.
   */
  ended(result: ShellRunResult, exit: ChildExit, session: CommandSession): void;
}
