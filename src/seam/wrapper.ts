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

/** A wrapper of the spawns of one shell. */
export interface SpawnWrapper {
  /** The program a command line runs with, where the wrapper resolved its own (an absolute path). */
  readonly shell?: string;
  /**
   * Wraps one command's `request`; undefined when this command runs
   * unwrapped (its spec says so). May throw what a command that cannot
   * start at all throws.
   */
  wrap(request: SpawnRequest, spec: ShellExecSpec): WrappedCommand | undefined;
}

/** One wrapped command. */
export interface WrappedCommand {
  /** The request to spawn instead. */
  readonly request: SpawnRequest;
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
