/**
 * The drain after an exit, for every transport: once the leader (or the
 * remote client) has exited, its pipes are waited for, but at most
 * `graceMs`, since a background grandchild that inherited stdout can hold
 * them open for ever (`sleep 30 & echo hi`).
 *
 * @module
 */

import type { ChildExit } from "../adapter.ts";
import { sharedTimer } from "../terminate/shared_timer.ts";

/** What exits and drains: a spawned child, or an engine's client. */
export interface Draining {
  /** Settles when it has exited (never rejects). */
  readonly exited: Promise<ChildExit>;
  /** Settles when both of its output streams have reached end of file (never rejects). */
  readonly drained: Promise<void>;
}

/**
 * Resolves once `process` has exited and then drained (true), or once
 * `graceMs` have passed since its exit, or `cutShort` settled, first
 * (false: its pipes are still open, for the caller to release).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { drainAfterExit } from "./drain.ts";
 * const exit = Promise.resolve({ code: 0, signal: null });
 * assert.equal(await drainAfterExit({ exited: exit, drained: Promise.resolve() }, 1_000), true);
 * assert.equal(await drainAfterExit({ exited: exit, drained: new Promise(() => {}) }, 10), false);
 * ```
 */
export async function drainAfterExit(
  process: Draining,
  graceMs: number,
  cutShort?: Promise<unknown>,
): Promise<boolean> {
  await process.exited;
  const drained = process.drained.then(() => true);
  const bounds = cutShort === undefined ? [drained] : [drained, cutShort.then(() => false)];
  let cancel: (() => void) | undefined;
  // An entry of the process's shared timer: one per command, so no runtime timer; cancelled either way, so it never
  // holds the event loop.
  const timeout = new Promise<boolean>((resolve) => cancel = sharedTimer.after(graceMs, () => resolve(false)));
  return await Promise.race([...bounds, timeout]).finally(() => cancel?.());
}
