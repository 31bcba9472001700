/**
 * A wrapper the engine refused for want of a session on the connection
 * (`EngineLink.busy`: sshd's `MaxSessions`) while other commands of the
 * shell hold one: it waits for one of them to end and is started again,
 * under the same deadline. This is part of the command's start
 * (`command.ts`): a refused wrapper is retried before the command counts
 * as started, so its end is only ever the end of a wrapper that ran.
 *
 * @module
 */

import type { EngineFailure, EngineProcess } from "../engine.ts";
import { sharedTimer } from "../terminate/shared_timer.ts";
import type { RemoteSessions } from "./sessions.ts";
import type { Supervisor } from "./supervisor.ts";

/**
 * sshd frees a session a moment after its client has gone, so a command woken by a freed session can be refused
 * again with nothing of the shell holding one: it tries again after each of these pauses before the refusal stands
 * (about 1.3 s in all). Seen in CI: the retry right after the wake was refused, on two Node legs of three.
 */
const SETTLING_RETRY_MS: readonly number[] = [10, 20, 40, 80, 160, 320, 640];

/** What became of a command whose wrapper the engine refused for want of a session. */
export type Room = "no" | "retry" | "stopped";

/**
 * A stop that comes while a command starts: its deadline fired (which
 * terminates it) before its wrapper said which session it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StartStop } from "./busy_retry.ts";
 * const stop = new StartStop();
 * assert.equal(stop.stopped, false);
 * stop.stop();
 * await stop.came;
 * assert.equal(stop.stopped, true);
 * ```
 */
export class StartStop {
  #announce: () => void = () => {};
  #stopped = false;
  /** Settles when the stop comes. */
  readonly came: Promise<void> = new Promise((resolve) => this.#announce = resolve);

  /** Whether it has come. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** The stop comes (again: nothing more happens). */
  stop(): void {
    this.#stopped = true;
    this.#announce();
  }
}

/** The retries of one command. */
export class BusyRetry {
  readonly #backend: RemoteSessions;
  /** Woken by a freed session at least once, and how many settling retries it has had since. */
  #woken = false;
  #settlingRetries = 0;

  constructor(backend: RemoteSessions) {
    this.#backend = backend;
  }

  /**
   * After a wrapper ended without a word from the engine's side: whether it
   * was refused only for want of a session while other commands of the
   * shell hold one. Then it waits for one of them to end and says `retry`
   * (and, once woken, a few more times after short pauses while the server
   * lets go of the freed session: see {@linkcode SETTLING_RETRY_MS});
   * `stopped` when the deadline fired (`stop`) or the connection ended
   * meanwhile; `no` otherwise, and the failure is reported as before.
   *
   * @param failure How `process` ended, with what its client said.
   */
  async after(
    supervisor: Supervisor,
    process: EngineProcess,
    stop: StartStop,
    failure: (exit: { code: number | null; signal: string | null }) => EngineFailure,
  ): Promise<Room> {
    const busy = supervisor.link.busy;
    if (busy === undefined || supervisor.failure !== undefined) return "no";
    const exit = await process.exited;
    if (!busy.call(supervisor.link, failure(exit))) return "no";
    // Stopped while an attempt was on its way: it never ran either.
    if (stop.stopped) return "stopped";
    const freed = this.#backend.sessionFreed();
    if (this.#backend.othersHolding(process)) {
      await Promise.race([freed, stop.came, supervisor.ended]);
      this.#woken = true;
      this.#settlingRetries = 0;
    } else {
      // Nothing of the shell holds a session: refused for good, unless one was freed just now and the server has
      // not let go of it yet.
      if (!this.#woken || this.#settlingRetries >= SETTLING_RETRY_MS.length) return "no";
      let cancel = (): void => {};
      const paused = new Promise<void>((resolve) => {
        cancel = sharedTimer.after(SETTLING_RETRY_MS[this.#settlingRetries++], resolve);
      });
      await Promise.race([paused, freed, stop.came, supervisor.ended]);
      cancel();
    }
    if (supervisor.failure !== undefined) return "no";
    return stop.stopped ? "stopped" : "retry";
  }
}
