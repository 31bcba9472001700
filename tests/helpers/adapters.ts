/**
 * The adapter of the runtime running the tests, and a wrapper of it that
 * notes the watchdog it starts (its handle and its record's directory), so
 * tests can check the watchdog's process and files from the outside.
 */

import type { ProcessAdapter, WatchdogHandle } from "../../src/seam/mod.ts";
import { denoAdapter } from "../../src/deno_adapter.ts";
import { nodeAdapter } from "../../src/node_adapter.ts";

/** The adapter for the runtime the tests run on. */
export const runtimeAdapter: ProcessAdapter = "Deno" in globalThis ? denoAdapter : nodeAdapter;

/** A watchdog as a tracing adapter saw it start. */
export interface StartedWatchdog {
  /** What the adapter returned. */
  handle: WatchdogHandle;
  /** The record's private directory, from the watchdog's environment. */
  dir: string;
}

/** The runtime's adapter, noting each watchdog it starts; `watchdog()` is the latest (undefined before any). */
export function tracingAdapter(base: ProcessAdapter = runtimeAdapter): {
  adapter: ProcessAdapter;
  watchdog: () => StartedWatchdog | undefined;
} {
  let started: StartedWatchdog | undefined;
  const adapter: ProcessAdapter = {
    ...base,
    spawnWatchdog: (script, env) => {
      const handle = base.spawnWatchdog(script, env);
      started = { handle, dir: env.DSH_WATCHDOG_DIR };
      return handle;
    },
  };
  return { adapter, watchdog: () => started };
}
