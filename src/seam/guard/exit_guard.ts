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
import type { SessionRegistry } from "../session/registry.ts";

/**
 * The exit guards of the host process: one synchronous exit listener per
 * adapter, over every open shell's sessions (see `host.ts`).
 */
export class ExitGuard {
  readonly #guarded = new Map<ProcessAdapter, Set<SessionRegistry>>();

  /** Puts `sessions` under the exit guard of `adapter` until {@linkcode release}. */
  guard(adapter: ProcessAdapter, sessions: SessionRegistry): void {
    let registries = this.#guarded.get(adapter);
    if (registries === undefined) {
      const set = new Set<SessionRegistry>();
      registries = set;
      this.#guarded.set(adapter, set);
      adapter.onHostExit(() => {
        for (const registry of set) registry.killAll();
      });
    }
    registries.add(sessions);
  }

  /** Takes `sessions` out of the exit guard (its shell is closed and its sessions are gone). */
  release(adapter: ProcessAdapter, sessions: SessionRegistry): void {
    this.#guarded.get(adapter)?.delete(sessions);
  }
}
