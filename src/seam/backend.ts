/**
 * What a shell runs its commands on, behind `Shell`: the local backend
 * (`local_backend.ts`: an adapter's process groups on this machine) or a
 * remote one (`remote/backend.ts`: an engine's connection). The shell
 * itself — validation, tasks and owners, `close()` — is the same for both.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import type { HostProcess } from "./host.ts";
import type { ResolvedShellOptions } from "./resolve/options.ts";
import type { Launched } from "./spawn/launch.ts";
import type { ShellExecSpec, ShellObserver } from "./types.ts";

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

/** Where a shell's commands run. */
export interface ShellBackend {
  /**
   * Starts `spec` (a checked spec of this shell). Throws what a command that
   * cannot start at all throws at once; every later outcome settles `result`.
   *
   * @param timeoutMs The timeout to enforce, or undefined for none (tasks).
   */
  launch(spec: ShellExecSpec, timeoutMs: number | undefined, observer: ShellObserver | undefined): Launched;
  /**
   * Called by `close()` once every command in flight has settled: ends what
   * the commands left running, waits until it is gone, and releases what
   * the backend holds (watchdog, connections).
   */
  shutDown(): Promise<void>;
}
