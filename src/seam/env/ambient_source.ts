/**
 * Where a shell's ambient environment comes from at each spawn: a shell's
 * fixed `ambientEnv`, or the host process's environment, read through the
 * adapter's one-call reader when it has one.
 *
 * Internal: not exported from the seam.
 *
 * @module
 */

import process from "node:process";
import type { ProcessAdapter } from "../adapter.ts";

/**
 * An ambient environment, read afresh at each spawn, and the one object
 * its scrub is remembered under (`AmbientMemo`): a reader may return a new
 * copy of the same environment at every read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ambientSource } from "./ambient_source.ts";
 * import { nodeAdapter } from "@dsh/shell/node";
 * const fixed = { PATH: "/usr/bin:/bin" };
 * const source = ambientSource(nodeAdapter, fixed);
 * assert.equal(source.read(), fixed);
 * assert.equal(source.key, fixed);
 * ```
 */
export interface AmbientSource {
  /** Stays the same object for as long as the source does. */
  readonly key: object;
  /** The environment as it is now. */
  read(): Readonly<Record<string, string | undefined>>;
}

/**
 * The ambient source of a shell: its fixed `ambientEnv` when it has one,
 * otherwise the host process's environment. That is read with the
 * adapter's `readEnvironment()` when the adapter has one (one call into
 * Deno instead of one per variable), remembered under that reader, and
 * otherwise through `process.env`, remembered under it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import process from "node:process";
 * import { ambientSource } from "./ambient_source.ts";
 * import { denoAdapter } from "@dsh/shell/deno";
 * import { nodeAdapter } from "@dsh/shell/node";
 * assert.equal(ambientSource(nodeAdapter, undefined).key, process.env);
 * const source = ambientSource(denoAdapter, undefined);
 * assert.equal(source.key, denoAdapter.readEnvironment);
 * assert.equal(source.read().PATH, process.env.PATH);
 * ```
 */
export function ambientSource(
  adapter: ProcessAdapter,
  fixed: Readonly<Record<string, string | undefined>> | undefined,
): AmbientSource {
  if (fixed !== undefined) return { key: fixed, read: () => fixed };
  const reader = adapter.readEnvironment;
  if (reader === undefined) return { key: process.env, read: () => process.env };
  // Remembered under the reader: every copy of an adapter shares it, and an adapter whose reader gives some other
  // environment does not take turns with process.env.
  return { key: reader, read: () => reader.call(adapter) };
}
