/**
 * What a shell runs its commands on, behind `Shell`: the local backend
 * (`local_backend.ts`: an adapter's process groups on this machine) or a
 * remote one (`remote/backend.ts`: an engine's connection), each a
 * transport (`transport.ts`) of the one launch pipeline. The shell itself —
 * validation, tasks and owners, `close()` — and every command's way from
 * spec to result are the same for both.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import type { ChildInput, TerminalSize } from "./adapter.ts";
import type { HostProcess } from "./host.ts";
import type { ResolvedShellOptions } from "./resolve/options.ts";
import type { OutputCollector } from "./capture/collector.ts";
import type { OutputEvents } from "./capture/output_events.ts";
import type { TakenState } from "./carry/state.ts";
import type { StopCause } from "./terminate/deadline.ts";
import type { Transport } from "./transport.ts";
import type { ShellRunResult } from "./types.ts";

/** What a backend gets from the shell that owns it. */
export interface BackendContext {
  /** The host process's shared state. */
  readonly host: HostProcess;
  /** The shell's resolved options. */
  readonly options: ResolvedShellOptions;
  /** Aborted by `close()`: ends every command in flight. */
  readonly closeSignal: AbortSignal;
  /** Keeps work (a termination) that `close()` must await. */
  readonly track: (work: Promise<unknown>) => void;
}

/**
 * Where a shell's commands run: a {@linkcode Transport} (each command goes
 * through the one pipeline, `launch/launch.ts`, over it) that also ends
 * what the shell leaves behind.
 */
export interface ShellBackend extends Transport {
  /**
   * Called by `close()` once every command in flight has settled: ends what
   * the commands left running, waits until it is gone, and releases what
   * the backend holds (watchdog, connections).
   */
  shutDown(): Promise<void>;
}

/** A started command, on whichever backend: what the pipeline hands the shell and its task. */
export interface Launched {
  /** The leader's pid, which is also its session's id. */
  readonly pid: number;
  /** The collector of stdout, readable while the command runs. */
  readonly stdout: OutputCollector;
  /** The collector of stderr. */
  readonly stderr: OutputCollector;
  /**
   * Settles with the result. Rejects only when the command could not be run: its transport's error (an engine's, a
   * refusal) or its wrapper's (a sandbox that never started it), which is also on its stderr unless the result was built.
   */
  readonly result: Promise<ShellRunResult>;
  /** The output as it arrives: for waiters (a task's `waitForOutput`). */
  readonly events: OutputEvents;
  /**
   * Starts termination of the whole session with `cause`: before the result settles, the result says so; after, it
   * ends the survivors only. False when termination had already begun or nothing of the session runs.
   */
  stop(cause: StopCause): boolean;
  /**
   * For a command launched with `carry`: once the result has settled, takes
   * the state the command left when it exited (bounded, never waiting on
   * the command; refused with a note when it is no state). Called once.
   */
  readonly state?: () => Promise<TakenState>;
  /** The command's open stdin, when the spec kept it open (`keepStdin`, `tty`). */
  readonly input?: ChildInput;
  /** Changes the size of the command's terminal, when it runs on one. */
  readonly resize?: (size: TerminalSize) => void;
}
