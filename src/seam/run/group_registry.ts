/**
 * Every process group a shell started and that may still be alive: the
 * ones running now and the survivors of finished commands (a background
 * grandchild that outlived its shell). `close()` terminates all of them;
 * the watchdog hears of each one as it starts and as it is seen gone.
 *
 * @module
 */

import type { ProcessAdapter } from "../adapter.ts";
import { groupIsAlive } from "./group_liveness.ts";

/** Told of each group as it starts and as it is seen gone. */
export interface GroupObserver {
  /** A group was started. */
  added(pgid: number): void;
  /** A group was seen gone. */
  removed(pgid: number): void;
}

/** The live process groups of one shell. */
export class GroupRegistry {
  readonly #adapter: ProcessAdapter;
  readonly #observer: GroupObserver;
  readonly #running = new Set<number>();
  readonly #survivors = new Set<number>();

  /**
   * @param adapter Probes whether groups are alive.
   * @param observer Told of every group as it starts and ends.
   */
  constructor(adapter: ProcessAdapter, observer: GroupObserver) {
    this.#adapter = adapter;
    this.#observer = observer;
  }

  /** Records a group whose leader was just spawned. */
  started(pgid: number): void {
    this.#running.add(pgid);
    this.#observer.added(pgid);
  }

  /**
   * Records that a group's leader has exited and its result settled; a
   * group with members still alive is kept as a survivor.
   */
  settled(pgid: number): void {
    this.#running.delete(pgid);
    if (groupIsAlive(this.#adapter, pgid)) this.#survivors.add(pgid);
    else this.#forget(pgid);
  }

  /** Survivors whose groups are still alive; the dead are forgotten, so a recycled pid is never signalled. */
  survivors(): number[] {
    for (const pgid of this.#survivors) {
      if (!groupIsAlive(this.#adapter, pgid)) this.#forget(pgid);
    }
    return [...this.#survivors];
  }

  /** Records that a survivor's group was terminated and seen gone. */
  ended(pgid: number): void {
    this.#forget(pgid);
  }

  /** Every group that may be alive: running and surviving. */
  all(): number[] {
    return [...this.#running, ...this.#survivors];
  }

  #forget(pgid: number): void {
    this.#survivors.delete(pgid);
    this.#observer.removed(pgid);
  }
}
