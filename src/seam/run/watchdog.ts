/**
 * The watchdog: a tiny `/bin/sh` process, in its own session, that holds a
 * pipe from the host and is told each command session as it starts (`+sid`)
 * and as it is seen gone (`-sid`). When the pipe closes — the host exited,
 * crashed or was SIGKILLed — it SIGKILLs every session still on its list.
 * This is what covers a host that dies without running any exit handler.
 *
 * @module
 */

import type { ProcessAdapter, WatchdogHandle } from "../adapter.ts";

/**
 * POSIX sh, so it runs wherever `/bin/sh` does (dash, bash, busybox). The
 * list is a space-separated string; removal rebuilds it, which is cheap
 * because only live groups are on it.
 */
const WATCHDOG_SCRIPT = `
trap '' INT HUP TERM
live=""
while IFS= read -r line; do
  case "$line" in
    +*) live="$live \${line#+}" ;;
    -*) gone="\${line#-}"; kept=""
        for g in $live; do [ "$g" = "$gone" ] || kept="$kept $g"; done
        live="$kept" ;;
  esac
done
for g in $live; do
  kill -KILL -"$g" 2>/dev/null
  # Groups the command made inside its session (timeout, set -m), where pkill exists.
  command -v pkill >/dev/null 2>&1 && pkill -KILL -s "$g" 2>/dev/null
done
`;

/** One shell's link to its watchdog, started at the first group it is told about. */
export class Watchdog {
  readonly #adapter: ProcessAdapter;
  /** undefined: not started yet; null: could not start (the exit hook still covers normal exits). */
  #handle: WatchdogHandle | null | undefined;

  /** @param adapter The adapter that starts the watchdog process. */
  constructor(adapter: ProcessAdapter) {
    this.#adapter = adapter;
  }

  /** The watchdog's pid, once started. */
  get pid(): number | undefined {
    return this.#handle?.pid;
  }

  /** Tells the watchdog a new group exists, starting the watchdog if needed. */
  added(pgid: number): void {
    this.#started()?.send(`+${pgid}\n`);
  }

  /** Tells the watchdog a group is gone, so its id is never signalled again. */
  removed(pgid: number): void {
    this.#handle?.send(`-${pgid}\n`);
  }

  /** Ends the watchdog (after `close()` has ended every group). */
  stop(): void {
    this.#handle?.close();
    this.#handle = null;
  }

  #started(): WatchdogHandle | null {
    if (this.#handle === undefined) {
      try {
        this.#handle = this.#adapter.spawnWatchdog(WATCHDOG_SCRIPT, { PATH: "/usr/bin:/bin" });
      } catch {
        this.#handle = null;
      }
    }
    return this.#handle;
  }
}
