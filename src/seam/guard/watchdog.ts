/**
 * The watchdog: a tiny `/bin/sh` process, in its own session, that holds a
 * pipe from the host. The host records each command session as it starts
 * (`+sid start`) and as it is seen gone (`-sid start`) in a private file
 * ({@linkcode WatchdogRecord}); nothing goes down the pipe, so no command wakes
 * the watchdog. When the pipe closes — the host exited, crashed or was
 * SIGKILLed — the watchdog replays the file, SIGKILLs every session still
 * listed whose id has not come round to a stranger (the record keeps each
 * leader's start time to tell), and removes the file and its directory.
 * This is what covers a host that dies without running any exit handler.
 * When the record ends with a spawn under way (`?mark` and no `+` after it:
 * the host died before it could list the command's session), the watchdog
 * also kills every process whose environment carries that command's mark,
 * with its group and its session. So it does for each mark the record
 * says to follow (`*mark`, a terminal's command, until `/mark`): what that
 * command started in sessions of its own (`setsid`) dies with it.
 *
 * @module
 */

import { tmpdir } from "node:os";
import type { ProcessAdapter, WatchdogHandle } from "../adapter.ts";
import type { SessionIdentity } from "../session/session.ts";
import { COMPACT_AT_BYTES, MARK_VARIABLE, newMark, NEXT_FILE, RECORD_FILE, WatchdogRecord } from "./record.ts";

/**
 * The replay, as a shell function `replay` that reads a record on stdin and
 * prints the live sessions, `sid start` one per line, with the same rule as
 * `replayRecord` (`record.ts`). awk does it in one pass; without awk, a
 * POSIX sh loop does it (quadratic, but the record is compacted small). Only
 * ids made of digits, without a leading zero and other than 1, are printed:
 * `kill -KILL -1` would signal every process we may signal.
 */
export const REPLAY_FUNCTION = `
replay() {
  if command -v awk >/dev/null 2>&1; then
    awk '/^[+-][1-9][0-9]* [0-9]+$/ { id = substr($1, 2); if (id == "1") next; key = id " " $2;
        if (substr($0, 1, 1) == "+") n[key]++; else if (n[key] > 0) n[key]-- }
      END { for (key in n) if (n[key] > 0) print key }'
    return
  fi
  live=""
  while IFS= read -r line || [ -n "$line" ]; do
    rest="\${line#?}"
    id="\${rest%% *}"
    start="\${rest#* }"
    case "$id" in ""|*[!0-9]*|0*|1) continue ;; esac
    case "$start" in ""|*[!0-9]*) continue ;; esac
    [ "$rest" = "$id $start" ] || continue
    key="$id:$start"
    case "$line" in
      +*) live="$live $key" ;;
      -*) kept=""; dropped=""
          for k in $live; do
            if [ -z "$dropped" ] && [ "$k" = "$key" ]; then dropped=1; else kept="$kept $k"; fi
          done
          live="$kept" ;;
    esac
  done
  for k in $live; do echo "\${k%%:*} \${k#*:}"; done
}
`;

/**
 * Kills session \`$1\` whose leader started at \`$2\`, unless the id has come
 * round: when a process holds the id and its start time (field 22 of its
 * stat line; the fields resume after the last ")" because the command name
 * may hold anything, newlines included, so the whole file is read) is not
 * the recorded one, it is a stranger, and our session is long over (an id
 * is given out again only once nothing of the old session exists). When no
 * process holds the id, the leader was reaped and members may remain:
 * they are killed by group and by session.
 */
export const KILL_FUNCTION = `
kill_session() {
  holder=$(cat "/proc/$1/stat" 2>/dev/null)
  if [ -n "$holder" ]; then
    recorded="$2"
    set -f
    set -- "$1" "$2" \${holder##*)}
    set +f
    [ "\${22:-}" = "$recorded" ] || return 0
  fi
  kill -KILL -"$1" 2>/dev/null
  # Groups the command made inside its session (timeout, set -m), where pkill exists.
  command -v pkill >/dev/null 2>&1 && pkill -KILL -s "$1" 2>/dev/null
  return 0
}
`;

/**
 * The pending mark, as a shell function \`pending_mark\` that reads a record
 * on stdin and prints the mark of its last \`?\` line when no \`+\` line
 * follows it, with the same rule as \`pendingMark\` (\`record.ts\`); only a
 * mark of 32 lowercase hex digits is printed.
 */
export const PENDING_FUNCTION = `
pending_mark() {
  mark=""
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      "?"*) mark="\${line#?}" ;;
      "+"*) mark="" ;;
    esac
  done
  [ \${#mark} -eq 32 ] || return 0
  case "$mark" in *[!0-9a-f]*) return 0 ;; esac
  echo "$mark"
}
`;

/**
 * The followed marks, as a shell function \`followed_marks\` that reads a
 * record on stdin and prints each mark of a \`*\` line that no later \`/\`
 * line takes back, with the same rule as \`followedMarks\` (\`record.ts\`).
 */
export const FOLLOWED_FUNCTION = `
followed_marks() {
  marks=""
  while IFS= read -r line || [ -n "$line" ]; do
    mark="\${line#?}"
    [ \${#mark} -eq 32 ] || continue
    case "$mark" in *[!0-9a-f]*) continue ;; esac
    case "$line" in
      "*"*) marks="$marks $mark" ;;
      "/"*) kept=""; dropped=""
            for m in $marks; do
              if [ -z "$dropped" ] && [ "$m" = "$mark" ]; then dropped=1; else kept="$kept $m"; fi
            done
            marks="$kept" ;;
    esac
  done
  for m in $marks; do echo "$m"; done
}
`;

/**
 * Kills every process whose environment holds \`${MARK_VARIABLE}=$1\`, and
 * the process group and session of each that a marked process leads, again
 * until two passes a tenth of a second apart find none (a marked process
 * may fork meanwhile, and one in the middle of an exec shows an empty
 * environment for a moment; at most twelve passes). Only what descends from the command carries its mark, so nothing
 * else is signalled: a group or a session is killed only when its leader is
 * marked (whatever the adapter did, a marked process may sit in a session
 * it did not make), and a process of another user is neither readable nor
 * killable. \`grep -z\` scans every environment in one process; a grep
 * without \`-z\` (an old busybox) is run once per process instead.
 */
export const KILL_MARKED_FUNCTION = `
has_mark() {
  if [ -n "$nul_grep" ]; then
    grep -qzxF -e "${MARK_VARIABLE}=$2" "$1" 2>/dev/null
    return
  fi
  tr '\\0' '\\n' < "$1" 2>/dev/null | grep -qxF -e "${MARK_VARIABLE}=$2"
}
marked() {
  if [ -n "$nul_grep" ]; then
    grep -lzxF -e "${MARK_VARIABLE}=$1" /proc/[0-9]*/environ 2>/dev/null
    return 0
  fi
  for file in /proc/[0-9]*/environ; do
    has_mark "$file" "$1" && echo "$file"
  done
  return 0
}
kill_marked() {
  nul_grep=""
  if printf 'x\\0' | grep -qzxF x 2>/dev/null; then nul_grep=1; fi
  round=0 quiet=0
  while [ $round -lt 12 ]; do
    round=$((round + 1))
    found=$(marked "$1")
    if [ -z "$found" ]; then
      # Once more after a pause: a process in the middle of an exec shows an empty environment for a moment.
      quiet=$((quiet + 1))
      [ $quiet -lt 2 ] || return 0
      sleep 0.1 2>/dev/null || sleep 1
      continue
    fi
    quiet=0
    for file in $found; do
      pid="\${file#/proc/}"
      pid="\${pid%/environ}"
      stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
      set -f
      set -- "$1" \${stat##*)}
      set +f
      group=""
      session=""
      case "\${4:-}" in ""|*[!0-9]*|0|1) ;; *) has_mark "/proc/$4/environ" "$1" && group="$4" ;; esac
      case "\${5:-}" in ""|*[!0-9]*|0|1) ;; *) has_mark "/proc/$5/environ" "$1" && session="$5" ;; esac
      kill -KILL "$pid" 2>/dev/null
      [ -z "$group" ] || kill -KILL -"$group" 2>/dev/null
      if [ -n "$session" ] && command -v pkill >/dev/null 2>&1; then pkill -KILL -s "$session" 2>/dev/null; fi
    done
  done
  return 0
}
`;

/**
 * POSIX sh, so it runs wherever `/bin/sh` does (dash, bash, busybox). The
 * pipe carries nothing: `read` returns only at its end. A clean `close()`
 * (and the exit guard, after it has killed everything) removes the record
 * before the pipe closes, so the watchdog then finds nothing to kill.
 */
const WATCHDOG_SCRIPT = `
trap '' INT HUP TERM
${REPLAY_FUNCTION}
${KILL_FUNCTION}
${PENDING_FUNCTION}
${FOLLOWED_FUNCTION}
${KILL_MARKED_FUNCTION}
while read -r _; do :; done
record="$DSH_WATCHDOG_DIR/${RECORD_FILE}"
if [ -f "$record" ]; then
  pending=$(pending_mark < "$record")
  followed=$(followed_marks < "$record")
  replay < "$record" | while read -r g start; do kill_session "$g" "$start"; done
  if [ -n "$pending" ]; then kill_marked "$pending"; fi
  for mark in $followed; do kill_marked "$mark"; done
fi
rm -f "$record" "$DSH_WATCHDOG_DIR/${NEXT_FILE}"
rmdir "$DSH_WATCHDOG_DIR" 2>/dev/null
if [ -n "$DSH_WATCHDOG_REMOVE" ]; then rm -rf -- "$DSH_WATCHDOG_REMOVE"; fi
`;

/** How long `close()` waits for the watchdog to exit before it SIGKILLs it. */
const EXIT_WAIT_MS = 2_000;
/** How long it then waits for the SIGKILLed watchdog to be reaped. */
const KILLED_WAIT_MS = 1_000;

/** What a watchdog is built with; the defaults are for production. */
export interface WatchdogOptions {
  /** Where the record's private directory is created. Default: the OS temp dir. */
  parent?: string;
  /** The record's growth, in bytes, that triggers a compaction. */
  compactAt?: number;
  /**
   * A private directory the watchdog removes as its last act, once what it
   * guards is dead: a sandboxed shell's state (every owner's `/tmp`), which
   * would otherwise stay in the temp dir when the host dies without
   * `close()`. It holds the record's directory (`parent`).
   */
  remove?: string;
}

/** One shell's link to its watchdog, started at the first session it is told about. */
export class Watchdog {
  readonly #adapter: ProcessAdapter;
  readonly #parent: string | undefined;
  readonly #compactAt: number;
  readonly #remove: string | undefined;
  /** undefined: not started yet; null: could not start or stopped (the exit guard still covers normal exits). */
  #handle: WatchdogHandle | null | undefined;
  #record: WatchdogRecord | undefined;
  /** A mark the record lists as the spawn under way, drawn ahead for the next command: handed out once. */
  #announced: string | undefined;

  /**
   * @param adapter The adapter that starts the watchdog process.
   * @param options Where the record lives and when it is compacted.
   */
  constructor(adapter: ProcessAdapter, options: WatchdogOptions = {}) {
    this.#adapter = adapter;
    this.#parent = options.parent;
    this.#compactAt = options.compactAt ?? COMPACT_AT_BYTES;
    this.#remove = options.remove;
  }

  /**
   * Records that a command carrying `mark` is about to be spawned, starting
   * the watchdog if needed: from now on a host that dies leaves nothing of
   * it running, even before its session is known.
   */
  starting(mark: string): void {
    if (this.#started() === null) return;
    this.#update((record) => record.starting(mark));
  }

  /**
   * Records a new session, starting the watchdog if needed, and in the same
   * write announces the next command's mark (`?mark`), drawn now, after this
   * spawn: the next command takes it with {@linkcode announced}, and its
   * `starting` then has nothing to write before its spawn.
   */
  added(session: SessionIdentity): void {
    if (this.#started() === null) return;
    const next = newMark();
    this.#announced = undefined;
    this.#update((record) => {
      record.add(session, next);
      this.#announced = next;
    });
  }

  /**
   * The mark the record already lists as the spawn under way, if one was
   * announced and not yet handed out; handed out once. A command that takes
   * it and is then not spawned leaves it pending, which kills nothing (no
   * process carries it); the next command then draws a fresh one.
   */
  announced(): string | undefined {
    const mark = this.#announced;
    this.#announced = undefined;
    return mark;
  }

  /** Records that a session is gone, so its id is never signalled again. */
  removed(session: SessionIdentity): void {
    if (!this.#handle) return;
    this.#update((record) => record.remove(session));
  }

  /**
   * Removes the record: the exit guard has just SIGKILLed every session,
   * and the watchdog, woken by the host's end, must not signal the same ids
   * again. The pipe stays open until the host is gone.
   */
  cleared(): void {
    this.#announced = undefined;
    this.#record?.dispose();
    this.#record = undefined;
  }

  /**
   * Ends the watchdog (after `close()` has ended every session): removes
   * the record, so the watchdog has nothing to kill, closes its pipe and
   * waits until it has exited, SIGKILLing it if it takes more than a few
   * seconds. Resolves once the process is gone.
   */
  async stop(): Promise<void> {
    const handle = this.#handle;
    this.#announced = undefined;
    this.#record?.dispose();
    this.#record = undefined;
    this.#handle = null;
    if (!handle) return;
    handle.close();
    if (await exitedWithin(handle, EXIT_WAIT_MS)) return;
    this.#adapter.signalGroup(handle.pid, "SIGKILL");
    await exitedWithin(handle, KILLED_WAIT_MS);
  }

  /**
   * Applies `change` to the record. A record that cannot be written (disk
   * full, say) would mislead the watchdog, and a stale `+sid` could make it
   * kill a recycled id: the watchdog is stopped, on the safe side, and the
   * exit guard alone covers normal exits from then on.
   */
  #update(change: (record: WatchdogRecord) => void): void {
    if (this.#record === undefined) return;
    try {
      change(this.#record);
    } catch {
      void this.stop();
    }
  }

  #started(): WatchdogHandle | null {
    if (this.#handle !== undefined) return this.#handle;
    let record: WatchdogRecord | undefined;
    try {
      record = new WatchdogRecord(this.#parent ?? tmpdir(), this.#compactAt);
      this.#handle = this.#adapter.spawnWatchdog(WATCHDOG_SCRIPT, {
        PATH: "/usr/bin:/bin",
        DSH_WATCHDOG_DIR: record.dir,
        ...(this.#remove === undefined ? {} : { DSH_WATCHDOG_REMOVE: this.#remove }),
      });
      this.#record = record;
    } catch {
      record?.dispose();
      this.#handle = null;
    }
    return this.#handle;
  }
}

/**
 * Whether `handle`'s process exits within `ms`; the timer holds the event
 * loop open meanwhile, which a helper's own exit does not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exitedWithin } from "./watchdog.ts";
 * const gone = { pid: 0, exited: Promise.resolve(), close: () => {} };
 * assert.equal(await exitedWithin(gone, 1_000), true);
 * const stuck = { pid: 0, exited: new Promise<void>(() => {}), close: () => {} };
 * assert.equal(await exitedWithin(stuck, 10), false);
 * ```
 */
export async function exitedWithin(handle: WatchdogHandle, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([handle.exited.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
