/**
 * The adapters the tests run commands through: the one of the runtime
 * running the tests, every adapter that runtime can run, and a wrapper
 * that notes the watchdog an adapter starts (its handle and its record's
 * directory), so tests can check the watchdog's process and files from
 * the outside.
 */

import type { ProcessAdapter, WatchdogHandle } from "../../src/seam/mod.ts";
import { denoAdapter } from "../../src/deno_adapter.ts";
import { nodeAdapter } from "../../src/node_adapter.ts";
import { IS_DENO } from "./runtime.ts";

/** The adapter for the runtime the tests run on. */
export const runtimeAdapter: ProcessAdapter = IS_DENO ? denoAdapter : nodeAdapter;

/** Every adapter this runtime can run: Deno runs node:child_process too, so the Deno leg checks both. */
export const adaptersUnderTest: readonly ProcessAdapter[] = IS_DENO ? [denoAdapter, nodeAdapter] : [nodeAdapter];

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

/**
 * The runtime's adapter, breaking its contract for each command whose
 * program or arguments hold `marker`: that child's `exited` rejects with
 * `failure` once the child has really exited (an adapter's never rejects),
 * so a test sees what the library makes of a failure it did not foresee.
 * Every other spawn (the watchdog's, the sandbox's set-up) is the base's.
 */
export function breakingAdapter(marker: string, failure: Error, base: ProcessAdapter = runtimeAdapter): ProcessAdapter {
  return {
    ...base,
    name: `breaking-${base.name}`,
    spawn(request) {
      const child = base.spawn(request);
      if (![request.program, ...request.args].some((arg) => arg.includes(marker))) return child;
      return {
        pid: child.pid,
        exited: child.exited.then(() => Promise.reject(failure)),
        drained: child.drained,
        releaseOutput: () => child.releaseOutput(),
        ...(child.input === undefined ? {} : { input: child.input }),
      };
    },
  };
}
