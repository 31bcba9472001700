/**
 * The deadline of one command: its timeout and its abort signals fused into
 * one event, where the first cause wins and later ones are ignored.
 *
 * @module
 */

import type { AbortFanout } from "./abort_fanout.ts";
import { sharedTimer } from "./shared_timer.ts";

/** Why we ended a command. */
export type StopCause = "timeout" | "abort";

/** Fires `onStop` once, with the first cause: the timer or any of the signals. */
export class Deadline {
  #cause: StopCause | undefined;
  #disposed = false;
  #announce: (cause: StopCause) => void = () => {};
  /** Resolves with the first cause when one fires; stays pending otherwise. */
  readonly fired: Promise<StopCause> = new Promise((resolve) => this.#announce = resolve);
  /** Cancels the timeout (one entry of the process's shared timer). */
  #cancelTimer: (() => void) | undefined;
  /** Stops listening to each signal; emptied by dispose(). */
  #unsubscribes: (() => void)[];
  readonly #onStop: (cause: StopCause) => void;
  readonly #onAbort = (): void => {
    this.fire("abort");
  };

  /**
   * @param timeoutMs Milliseconds until the timeout fires, or undefined for none.
   * @param signals Signals whose abort ends the command.
   * @param listeners The host's shared abort listeners.
   * @param onStop Called once with the first cause.
   */
  constructor(
    timeoutMs: number | undefined,
    signals: (AbortSignal | undefined)[],
    listeners: AbortFanout,
    onStop: (cause: StopCause) => void,
  ) {
    this.#onStop = onStop;
    const given = signals.filter((s): s is AbortSignal => s !== undefined);
    // Shared listeners (see abort_fanout.ts): the shell's close signal and a
    // caller's signal are listened to by every command in flight.
    this.#unsubscribes = given.map((signal) => listeners.onAbort(signal, this.#onAbort));
    if (given.some((s) => s.aborted)) this.fire("abort");
    else if (timeoutMs !== undefined) this.#cancelTimer = sharedTimer.after(timeoutMs, () => this.fire("timeout"));
  }

  /** The cause that fired, if any. */
  get cause(): StopCause | undefined {
    return this.#cause;
  }

  /** Stops listening; a cause that has not fired yet never will. */
  dispose(): void {
    this.#disposed = true;
    this.#cancelTimer?.();
    for (const unsubscribe of this.#unsubscribes) unsubscribe();
    this.#unsubscribes = [];
  }

  /**
   * Starts the timeout now, for a deadline made without one because its
   * command's time counts from later (a remote command's, once connected);
   * does nothing once a cause has fired or the deadline was disposed.
   */
  arm(timeoutMs: number | undefined): void {
    if (timeoutMs === undefined || this.#cause !== undefined || this.#disposed || this.#cancelTimer !== undefined) {
      return;
    }
    this.#cancelTimer = sharedTimer.after(timeoutMs, () => this.fire("timeout"));
  }

  /** Fires `cause` by hand (e.g. a task's `kill()`); false when a cause had already fired or the deadline was disposed. */
  fire(cause: StopCause): boolean {
    if (this.#cause !== undefined || this.#disposed) return false;
    this.#cause = cause;
    this.dispose();
    this.#onStop(cause);
    this.#announce(cause);
    return true;
  }
}
