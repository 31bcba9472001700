/**
 * Termination of a command's whole session: SIGTERM to each of its process
 * groups, then SIGKILL `graceMs` later if anything still runs. Grandchildren
 * go too, also those that trap SIGTERM or made a group of their own.
 *
 * Every termination under way in the process is watched by one poller: each
 * tick looks at all of them in one turn, so they share one pass over
 * `/proc` (see `proc_table.ts`) however many there are. `close()` with
 * hundreds of survivors would otherwise scan `/proc` hundreds of times per
 * poll.
 *
 * @module
 */

import type { CommandSession } from "../session/session.ts";

/** How long to wait for a SIGKILLed session to disappear before giving up on it. */
const AFTER_KILL_MS = 5_000;
/** The first poll comes soon (most commands die at once); the interval then doubles up to the last. */
const FIRST_POLL_MS = 2;
const LAST_POLL_MS = 50;

/** One session being terminated. */
interface Termination {
  readonly session: CommandSession;
  /** SIGTERM sent and waiting out the grace, or SIGKILL sent and waiting for the end. */
  killed: boolean;
  /** When the current phase ends (SIGKILL is due, or we give up). */
  until: number;
  /** The current poll interval and when the next poll of this session is due. */
  interval: number;
  due: number;
  readonly done: (gone: boolean) => void;
}

/**
 * Every termination under way in the host process, watched by one timer:
 * each tick looks at all of them in one turn, so that those needing `/proc`
 * share one pass. One per host process (see `host.ts`).
 */
export class TerminationPoller {
  readonly #terminations = new Set<Termination>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;

  /**
   * Terminates `session` and resolves once it is gone (true) or could not
   * be seen to go within a bounded wait after SIGKILL (false). SIGTERM is
   * sent before this returns.
   */
  terminate(session: CommandSession, graceMs: number): Promise<boolean> {
    if (!session.signal("SIGTERM")) return Promise.resolve(true);
    const now = performance.now();
    return new Promise((done) => {
      const due = Math.min(now + FIRST_POLL_MS, now + graceMs);
      this.#terminations.add({ session, killed: false, until: now + graceMs, interval: FIRST_POLL_MS, due, done });
      this.#schedule();
    });
  }

  /** Sets the timer for the earliest poll due. */
  #schedule(): void {
    let next = Infinity;
    for (const termination of this.#terminations) next = Math.min(next, termination.due);
    if (next === this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = next;
    if (next !== Infinity) this.#timer = setTimeout(() => this.#poll(), Math.max(0, next - performance.now()));
  }

  /**
   * Looks at every termination under way: all in this one turn, so that
   * those needing `/proc` share one pass.
   */
  #poll(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = performance.now();
    for (const termination of this.#terminations) {
      if (!termination.session.alive()) {
        this.#finish(termination, true);
      } else if (now >= termination.until) {
        if (termination.killed) {
          this.#finish(termination, false);
          continue;
        }
        termination.session.signal("SIGKILL");
        termination.killed = true;
        termination.until = now + AFTER_KILL_MS;
        termination.interval = FIRST_POLL_MS;
        termination.due = now + FIRST_POLL_MS;
      } else if (now >= termination.due) {
        termination.interval = Math.min(termination.interval * 2, LAST_POLL_MS);
        termination.due = Math.min(now + termination.interval, termination.until);
      }
    }
    this.#schedule();
  }

  #finish(termination: Termination, gone: boolean): void {
    this.#terminations.delete(termination);
    termination.done(gone);
  }
}
