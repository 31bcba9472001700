/**
 * Every command session a shell started and that may still be alive: the
 * ones running now and the survivors of finished commands (a background
 * grandchild that outlived its shell). `close()` terminates all of them;
 * the watchdog hears of each one as it starts and as it is seen gone.
 *
 * A finished command's session is a survivor while **any** process of the
 * session runs, whatever its group (`set -m; sleep 300 &` puts the sleeper
 * in a group of its own). Telling that takes a pass over `/proc`, too dear
 * for every settle: so each settled session is kept as a survivor, and all
 * survivors are re-checked together, in one shared pass, at most
 * {@linkcode RECHECK_MS} after a settle, then again and again (the interval
 * growing to {@linkcode RECHECK_MAX_MS}) while any remain, and whenever
 * `close()` asks. A settle costs no `/proc` read at all.
 *
 * @module
 */

import { setTimeout as setNodeTimeout } from "node:timers";
import type { CommandSession, SessionIdentity } from "./session.ts";

/** Told of each session as it starts and as it is seen gone. */
export interface SessionObserver {
  /** A command whose environment carries `mark` is about to be spawned. */
  starting(mark: string): void;
  /** A session was started. */
  added(session: SessionIdentity): void;
  /** A session was seen gone. */
  removed(session: SessionIdentity): void;
  /** Every session was just SIGKILLed (the host is exiting): nothing is left to watch. */
  cleared(): void;
  /**
   * A command mark already announced as the spawn under way, for the next
   * command to carry (handed out once), if the observer draws them ahead.
   */
  announced?(): string | undefined;
}

/**
 * How soon after a settle the survivors are re-checked. A session that is
 * over stays on the watchdog's list until then, which is harmless (the
 * record keeps each leader's start time, so the watchdog never signals an
 * id that came round to a stranger); and each pass reads every process's
 * stat, some 2–3 ms with a hundred processes, on the main thread. At 250
 * ms that pass was about 1% of the host's time while commands ran back to
 * back; at a second, a quarter of that.
 */
export const RECHECK_MS = 1_000;

/**
 * While survivors remain, they are re-checked again and again, the interval
 * doubling from {@linkcode RECHECK_MS} up to this: a survivor that ends
 * while the harness is idle leaves the watchdog's list within a few
 * seconds, not at the next command or `close()`.
 */
export const RECHECK_MAX_MS = 4_000;

/** The live sessions of one shell. */
export class SessionRegistry {
  readonly #observer: SessionObserver;
  readonly #running = new Set<CommandSession>();
  readonly #survivors = new Set<CommandSession>();
  /** The pending re-check; unref'd: survivors never hold the event loop open. */
  #recheck: ReturnType<typeof setNodeTimeout> | undefined;
  /** The delay of the next re-check while survivors remain; back to the shortest at each settle. */
  #recheckMs = RECHECK_MS;

  /** @param observer Told of every session as it starts and ends. */
  constructor(observer: SessionObserver) {
    this.#observer = observer;
  }

  /**
   * Tells the observer that a command carrying `mark` in its environment is
   * about to be spawned: called just before the spawn, so that a host that
   * dies while the command starts leaves nothing of it running.
   */
  starting(mark: string): void {
    this.#observer.starting(mark);
  }

  /**
   * A mark drawn ahead and already announced to the observer as the spawn
   * under way (so that {@linkcode starting} has nothing to do before the
   * spawn), or undefined: the caller then draws its own.
   */
  announced(): string | undefined {
    return this.#observer.announced?.();
  }

  /** Records a session whose leader was just spawned. */
  started(session: CommandSession): void {
    this.#running.add(session);
    this.#observer.added(session);
  }

  /**
   * Records that a session's leader has exited, been reaped and its result
   * settled. The session is kept as a survivor until a re-check finds
   * nothing of it running.
   */
  settled(session: CommandSession): void {
    this.#running.delete(session);
    session.leaderReaped();
    this.#survivors.add(session);
    this.#recheckMs = RECHECK_MS;
    this.#scheduleRecheck();
  }

  /** Survivors still alive; the dead are forgotten. One shared `/proc` pass for all. */
  survivors(): CommandSession[] {
    this.#prune();
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

  /**
   * SIGKILLs every session, synchronously (the host is exiting), and tells
   * the observer that nothing is left to watch.
   */
  killAll(): void {
    for (const session of this.all()) session.signal("SIGKILL");
    for (const session of this.all()) session.killFollowed();
    this.#observer.cleared();
  }

  /** Re-checks the survivors after the current delay, then again with a longer one while any remain. */
  #scheduleRecheck(): void {
    if (this.#recheck !== undefined) return;
    this.#recheck = setNodeTimeout(() => {
      this.#recheck = undefined;
      this.#prune();
      if (this.#survivors.size === 0) return;
      this.#recheckMs = Math.min(this.#recheckMs * 2, RECHECK_MAX_MS);
      this.#scheduleRecheck();
    }, this.#recheckMs).unref();
  }

  /** Forgets the survivors that are gone; they all share this turn's `/proc` pass. */
  #prune(): void {
    for (const survivor of this.#survivors) {
      if (!survivor.alive()) this.#forget(survivor);
    }
  }

  #forget(session: CommandSession): void {
    if (this.#survivors.delete(session)) this.#observer.removed(session);
  }
}
