/**
 * The exit guard: when the host ends normally without `close()`, every live
 * session of every open shell is SIGKILLed synchronously, so no command
 * outlives the harness, and each watchdog's record is cleared, so the
 * watchdog, woken a moment later by the host's end, does not signal the same
 * ids again (by then one may belong to a stranger). One listener per
 * adapter, however many shells.
 *
 * @module
 */

import type { ProcessAdapter } from "../adapter.ts";
import type { GroupRegistry } from "./group_registry.ts";

const guarded = new Map<ProcessAdapter, Set<GroupRegistry>>();

/** Puts `groups` under the exit guard of `adapter` until {@linkcode releaseAtHostExit}. */
export function guardAtHostExit(adapter: ProcessAdapter, groups: GroupRegistry): void {
  let registries = guarded.get(adapter);
  if (registries === undefined) {
    const set = new Set<GroupRegistry>();
    registries = set;
    guarded.set(adapter, set);
    adapter.onHostExit(() => {
      for (const registry of set) registry.killAll();
    });
  }
  registries.add(groups);
}

/** Takes `groups` out of the exit guard (its shell is closed and its groups are gone). */
export function releaseAtHostExit(adapter: ProcessAdapter, groups: GroupRegistry): void {
  guarded.get(adapter)?.delete(groups);
}
