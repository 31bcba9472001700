/**
 * The shape of a settled command, {@linkcode ShellRunResult}: built once, by
 * `result.ts`, for the local and the remote path alike. Re-exported by
 * `../types.ts`, the root's source.
 *
 * @module
 */

import type { CollectedOutput } from "../capture/types.ts";

/**
 * The settled outcome of one foreground command.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellRunResult } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * function summary(result: ShellRunResult): string {
 *   if (result.timedOut) return `timed out after ${result.timeoutMs}ms`;
 *   if (result.aborted) return "aborted";
 *   return result.exitCode === null ? `killed by ${result.signal}` : `exit code ${result.exitCode}`;
 * }
 * await using shell = createLocalShell();
 * const result = await shell.run(shell.resolve({ command: "sleep 5", owner: null, timeoutMs: 100 }));
 * assert.equal(summary(result), "timed out after 100ms");
 * ```
 */
export interface ShellRunResult {
  /** The exit code, or `null` when a signal ended the command. */
  exitCode: number | null;
  /** The signal that ended the command (e.g. `"SIGTERM"`), or `null`. */
  signal: string | null;
  /**
   * The timeout came before the command settled (never together with
   * `aborted`). Usually it ended the command: `exitCode` is `null` and
   * `signal` names the signal. When it came after the command's own exit,
   * while its output was still being read to the end (or held open by a
   * background process), it cut that wait short and ended what was left,
   * and `exitCode` is the command's own.
   */
  timedOut: boolean;
  /**
   * The abort signal or `close()` came before the command settled; as for
   * `timedOut`, `exitCode` is the command's own when it came after the exit.
   */
  aborted: boolean;
  /** The effective timeout in ms. */
  timeoutMs: number;
  /** Wall time from spawn to settlement in ms. */
  durationMs: number;
  /** Captured standard output. */
  stdout: CollectedOutput;
  /** Captured standard error. */
  stderr: CollectedOutput;
  /**
   * What the observer given to `run()`/`start()`/`exec()` threw, the first
   * time it threw; the observer was not called again. Absent when it never
   * threw (or there was none). Capture is not affected either way.
   */
  observerError?: unknown;
  /**
   * On sandboxed runs: `denied` is a best-effort hint that the command
   * failed because the sandbox refused it something (a read-only file
   * system, a protected path, no network), read from what it printed.
   */
  sandbox?: { denied: boolean };
  /**
   * A session's command only: one line saying what of the state it left the
   * session did not take, and why (a state refused, variables dropped).
   * Absent when the session took it all, or there was nothing to take.
   */
  sessionNote?: string;
}

/**
 * What a wrapper adds to a result, once it has read the fields built before
 * (the sandbox's `denied` hint): `result.ts` puts it on the result, and no
 * wrapper writes to one. Internal: not exported from the package.
 */
export type ResultFields = Pick<ShellRunResult, "sandbox">;
