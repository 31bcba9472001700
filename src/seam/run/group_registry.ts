/**
 * Every process group a shell started and that may still be alive: the
 * ones running now and the survivors of finished commands (a background
 * grandchild that outlived its shell). `close()` terminates all of them.
 *
 * @module
 */

import type { ProcessAdapter } from "../adapter.ts";
import { groupIsAlive } from "./group_liveness.ts";

/** The live process groups of one shell. */
export class GroupRegistry {
  readonly #running = new Set<number>();
  readonly #survivors = new Set<number>();

  /** Records a group whose leader was just spawned. */
  started(pgid: number): void {
    this.#running.add(pgid);
  }

  /**
   * Records that a group's leader has exited and its result settled; a
   * group with members still alive is kept as a survivor.
   */
  settled(adapter: ProcessAdapter, pgid: number): void {
    this.#running.delete(pgid);
    if (groupIsAlive(adapter, pgid)) this.#survivors.add(pgid);
    else this.#survivors.delete(pgid);
  }

  /** Survivors whose groups are still alive; the dead are forgotten, so a recycled pid is never signalled. */
  survivors(adapter: ProcessAdapter): number[] {
    for (const pgid of this.#survivors) {
      if (!groupIsAlive(adapter, pgid)) this.#survivors.delete(pgid);
    }
    return [...this.#survivors];
  }

  /** Every group that may be alive: running and surviving. */
  all(): number[] {
    return [...this.#running, ...this.#survivors];
  }
}
