/**
 * `createLocalShell`: `createShell(localEngine(), options)`, as in 1.0.
 *
 * @module
 */

import process from "node:process";
import { localEngine } from "./engines/local.ts";
import { ShellSpawnError } from "./seam/errors.ts";
import { ownValue } from "./seam/own_fields.ts";
import { createShell } from "./seam/shell.ts";
import type { LocalShellOptions, Shell } from "./seam/types.ts";

/**
 * Creates a shell that runs commands on this machine, with the adapter of
 * the current runtime (Deno or Node) unless `options.adapter` is given.
 * Throws `ShellSpecError` naming an invalid option, and `ShellSpawnError`
 * on Windows, which has no POSIX process groups.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell({ timeoutMs: 10_000 });
 * const result = await shell.run(shell.resolve({
 *   command: "tr a-z A-Z",
 *   owner: null,
 *   stdin: "hello from stdin\n",
 * }));
 * assert.equal(result.stdout.text, "HELLO FROM STDIN\n");
 * ```
 */
export function createLocalShell(options?: LocalShellOptions): Shell {
  if (process.platform === "win32") {
    throw new ShellSpawnError("Windows is not supported: @dsh/shell needs POSIX process groups and signals");
  }
  // An own property only: an adapter planted on Object.prototype must not spawn our commands.
  const adapter = typeof options === "object" && options !== null ? ownValue(options, "adapter") : undefined;
  return createShell(localEngine(adapter), options);
}
