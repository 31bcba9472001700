/**
 * Every command session a shell started and that may still be alive: the
 * ones running now and the survivors of finished commands (a background
 * grandchild that outlived its shell). `close()` terminates all of them;
 * the watchdog hears of each one as it starts and as it is seen gone.
 *
 * @module
 */

import type { CommandSession } from "./session.ts";

/** Told of each session as it starts and as it is seen gone. */
export interface GroupObserver {
  /** A session was started. */
  added(sid: number): void;
  /** A session was seen gone. */
  removed(sid: number): void;
}

/** The live sessions of one shell. */
export class GroupRegistry {
  readonly #observer: GroupObserver;
  readonly #running = new Set<CommandSession>();
  readonly #survivors = new Set<CommandSession>();

  /** @param observer Told of every session as it starts and ends. */
  constructor(observer: GroupObserver) {
    this.#observer = observer;
  }

  /** Records a session whose leader was just spawned. */
  started(session: CommandSession): void {
    this.#running.add(session);
    this.#observer.added(session.id);
  }

  /**
   * Records that a session's leader has exited and its result settled; one
   * whose group still has members is kept as a survivor. Survivors found
   * gone meanwhile are forgotten here too, so a recycled id is never
   * signalled later.
   */
  settled(session: CommandSession): void {
    this.#running.delete(session);
    for (const survivor of this.#survivors) {
      if (!survivor.groupAlive()) this.#forget(survivor);
    }
    if (session.groupAlive()) this.#survivors.add(session);
    else this.#forget(session);
  }

  /** Survivors still alive; the dead are forgotten. */
  survivors(): CommandSession[] {
    for (const survivor of this.#survivors) {
      if (!survivor.alive()) this.#forget(survivor);
    }
    return [...this.#survivors];
  }

  /** Records that a survivor was terminated and seen gone. */
  ended(session: CommandSession): void {
    this.#forget(session);
  }

  /** Every session that may be alive: running and surviving. */
  all(): CommandSession[] {
    return [...this.#running, ...this.#survivors];
  }

  #forget(session: CommandSession): void {
    this.#survivors.delete(session);
    this.#observer.removed(session.id);
  }
}
