/**
 * The local engine: this machine, through a process adapter.
 *
 * @module
 */

import type { ProcessAdapter } from "../seam/adapter.ts";
import type { LocalEngine } from "../seam/engine.ts";
import { runtimeAdapter } from "../runtime_adapter.ts";

/**
 * This machine as an engine: `createShell(localEngine(), options)` is
 * `createLocalShell(options)`. Uses the current runtime's adapter unless
 * one is given.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell";
 * import { localEngine } from "@dsh/shell/engines";
 * import assert from "node:assert/strict";
 * await using shell = createShell(localEngine(), { timeoutMs: 5_000 });
 * const result = await shell.exec("echo $((6 * 7))");
 * assert.equal(result.stdout.text, "42\n");
 * ```
 */
export function localEngine(adapter?: ProcessAdapter): LocalEngine {
  return { kind: "local", name: "local", adapter: adapter ?? runtimeAdapter() };
}
