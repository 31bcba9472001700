/**
 * The contract between the runtime-neutral seam and a runtime adapter.
 * An adapter translates one runtime's process primitives into this shape
 * and nothing more: everything that can be shared lives in the seam.
 *
 * @module
 */

/** The signals the seam sends to a process group; `0` only probes. */
export type GroupSignal = "SIGTERM" | "SIGKILL" | 0;

/** What the seam asks an adapter to start. */
export interface SpawnRequest {
  /** The shell program, run as `<shell> -c <command>`. */
  shell: string;
  /** The command line. */
  command: string;
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
   * Receives each stdout chunk. The chunk is only valid during the call:
   * an adapter may reuse its memory afterwards.
   */
  onStdout(chunk: Uint8Array): void;
  /** Receives each stderr chunk, under the same rule as `onStdout`. */
  onStderr(chunk: Uint8Array): void;
}

/** How a child ended. */
export interface ChildExit {
  /** The exit code, or `null` when a signal ended it. */
  code: number | null;
  /** The terminating signal's name, or `null`. */
  signal: string | null;
}

/** A started child: the leader of its own process group. */
export interface ChildHandle {
  /** The child's pid, which is also its process group id. */
  readonly pid: number;
  /** Settles when the child has exited (it never rejects). */
  readonly exited: Promise<ChildExit>;
  /** Settles when both stdout and stderr have reached end of file (it never rejects). */
  readonly drained: Promise<void>;
  /** Stops reading output and releases both pipes; idempotent. */
  releaseOutput(): void;
}

/** A long-lived helper process fed through its stdin pipe (the watchdog). */
export interface WatchdogHandle {
  /** The helper's pid. */
  readonly pid: number;
  /** Writes `text` to the helper's stdin; errors (the helper is gone) are ignored. */
  send(text: string): void;
  /** Closes the helper's stdin, which tells it to finish. */
  close(): void;
}

/**
 * A runtime's way of starting process groups and signalling them.
 *
 * @example
 * ```ts
 * import type { ProcessAdapter } from "@dsh/shell/seam";
 * function describe(adapter: ProcessAdapter): string {
 *   return `spawning with ${adapter.name}`;
 * }
 * ```
 */
export interface ProcessAdapter {
  /** A short name for messages, e.g. `"node"` or `"deno"`. */
  readonly name: string;
  /**
   * Starts `<shell> -c <command>` as the leader of a new process group
   * (a new session). Synchronous, so a background task knows its pid at
   * once; throws `ShellSpawnError` naming the shell when it cannot start.
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
   * output discarded, and without holding the host's event loop open: it
   * outlives the host and learns of the host's death from the pipe's end.
   */
  spawnWatchdog(script: string, env: Record<string, string>): WatchdogHandle;
}
