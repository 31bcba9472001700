/**
 * The CLI's exit codes, chosen so scripts can tell the command's own
 * status from the CLI's: `run` passes the command's code through, and the
 * CLI's own outcomes use codes that shells and sysexits already reserve.
 *
 * @module
 */

import { constants } from "node:os";
import type { ShellRunResult } from "../seam/types.ts";

/** `hook`: the event was blocked (a hook denied it), as Claude Code's exit 2. */
export const EXIT_BLOCKED = 2;
/** A usage mistake: an unknown option, a missing value (sysexits `EX_USAGE`). */
export const EXIT_USAGE = 64;
/** `run`: the command timed out (as GNU `timeout`). */
export const EXIT_TIMED_OUT = 124;
/** The CLI itself could not do its job: the command could not start, the settings are invalid (as `timeout`, `env`). */
export const EXIT_FAILED = 125;

/** The exit code `run` ends with: the command's own, 124 on timeout, 128+n after signal n. */
export function runExitCode(result: ShellRunResult): number {
  if (result.timedOut) return EXIT_TIMED_OUT;
  if (result.exitCode !== null) return result.exitCode;
  // Signal numbers differ between Linux and macOS: ask the platform.
  const signals = constants.signals as Record<string, number | undefined>;
  return 128 + (signals[result.signal ?? ""] ?? 0);
}
