/**
 * The one place that asks which runtime this is: Deno, or Node (also Bun
 * and the like, through `node:child_process`).
 *
 * @module
 */

import { denoAdapter } from "./deno_adapter.ts";
import { nodeAdapter } from "./node_adapter.ts";
import type { ProcessAdapter } from "./seam/adapter.ts";

/**
 * The adapter for the runtime this code runs on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeAdapter } from "./runtime_adapter.ts";
 * assert.equal(runtimeAdapter().name, "Deno" in globalThis ? "deno" : "node");
 * ```
 */
export function runtimeAdapter(): ProcessAdapter {
  return "Deno" in globalThis ? denoAdapter : nodeAdapter;
}
