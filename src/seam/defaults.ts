/**
 * The defaults of the shell's options: public (the root entry exports
 * them), and read by the options' resolution and by the tools' texts.
 *
 * @module
 */

/**
 * The defaults of the options of `createLocalShell` and `createShell`, in one place.
 *
 * @example
 * ```ts
 * import { createLocalShell, DEFAULTS } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * assert.equal(DEFAULTS.timeoutMs, 120_000);
 * assert.equal(DEFAULTS.graceMs, 3_000);
 * await using shell = createLocalShell();
 * assert.equal(shell.resolve({ command: "true", owner: null }).timeoutMs, DEFAULTS.timeoutMs);
 * ```
 */
export const DEFAULTS = {
  timeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  maxOutputBytes: 64_000,
  maxSpillBytes: 64 * 1024 * 1024,
  graceMs: 3_000,
  shell: "bash",
  maxTasksPerOwner: 10,
  maxFinishedTasks: 100,
  maxSessionStateBytes: 1024 * 1024,
} as const;
