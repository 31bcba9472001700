/**
 * Timeouts that share one runtime timer. Every command has a timeout armed
 * at spawn and cleared at settle, and a drain bound armed at exit and
 * cleared when the pipes close: with a runtime timer each, that is four
 * timer operations per command, which on Node create and destroy the
 * runtime's list for that duration each time (the list is dropped when it
 * empties). Here one timer is armed for the earliest pending due time and
 * is left armed when that entry is cancelled: the next commands' later
 * entries need no timer operation at all, and the timer re-arms for the
 * earliest entry still pending when it fires.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import { clearTimeout as clearNodeTimeout, setTimeout as setNodeTimeout } from "node:timers";

/** One pending callback. */
interface Entry {
  readonly due: number;
  readonly callback: () => void;
}

/**
 * A set of timeouts over one runtime timer. The timer holds the event loop
 * open exactly while an entry is pending, as one timer per entry would.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SharedTimer } from "./shared_timer.ts";
 * const timers = new SharedTimer();
 * const fired: string[] = [];
 * const cancel = timers.after(5, () => fired.push("cancelled"));
 * timers.after(10, () => fired.push("late"));
 * timers.after(1, () => fired.push("early"));
 * cancel();
 * await new Promise((resolve) => setTimeout(resolve, 50));
 * assert.deepEqual(fired, ["early", "late"]);
 * ```
 */
export class SharedTimer {
  readonly #pending = new Set<Entry>();
  #timer: ReturnType<typeof setNodeTimeout> | undefined;
  /** When the armed timer fires; Infinity when none is armed. */
  #armedFor = Infinity;

  /**
   * Calls `callback` once, `ms` milliseconds from now (never earlier),
   * unless the returned function is called first. A callback that throws
   * does not keep the others from being called; the first error is thrown
   * from the timer's callback, where the runtime reports it.
   *
   * @returns Cancels the call; calling it again, or after the call, does nothing.
   */
  after(ms: number, callback: () => void): () => void {
    const entry: Entry = { due: performance.now() + ms, callback };
    this.#pending.add(entry);
    if (entry.due < this.#armedFor) this.#arm(entry.due);
    else if (this.#pending.size === 1) this.#timer?.ref();
    return () => {
      // Left armed: it fires, finds nothing due, and re-arms for what is still pending (if anything).
      if (this.#pending.delete(entry) && this.#pending.size === 0) this.#timer?.unref();
    };
  }

  #arm(due: number): void {
    if (this.#timer !== undefined) clearNodeTimeout(this.#timer);
    this.#armedFor = due;
    // The runtime's timers count whole milliseconds: rounded up, so a timer never fires before its due time.
    this.#timer = setNodeTimeout(() => this.#fire(), Math.max(1, Math.ceil(due - performance.now())));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = performance.now();
    const due: Entry[] = [];
    let next = Infinity;
    for (const entry of this.#pending) {
      if (entry.due <= now) due.push(entry);
      else if (entry.due < next) next = entry.due;
    }
    for (const entry of due) this.#pending.delete(entry);
    // Earliest due first, as one runtime timer per entry would fire them when the loop comes late (the sort is
    // stable: entries due together keep the order they were set in).
    due.sort((a, b) => a.due - b.due);
    if (next !== Infinity) this.#arm(next);
    let failure: { error: unknown } | undefined;
    for (const entry of due) {
      try {
        entry.callback();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  }
}

/** The one {@linkcode SharedTimer} of this process: deadlines and drain bounds of every shell. */
export const sharedTimer: SharedTimer = new SharedTimer();
