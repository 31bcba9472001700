/**
 * A command's session: the leader is spawned as a session leader, so its
 * pid is the id of its session and of its first process group. Commands
 * may make more groups inside the session (`timeout`, `set -m`), so
 * termination and liveness look at the whole session where `/proc` tells
 * who is in it (`proc_table.ts`, one pass shared by every session asking in
 * the same turn), and at the leader's group elsewhere (macOS).
 *
 * The vocabulary: a command **session** is what we track, signal and
 * record; a **process group** is what a signal is sent to (a session holds
 * one or more); a **member** is a process of the session.
 *
 * **Whose id is it?** A session id is a pid, and the system hands a pid out
 * again only once nothing uses it any more: not as a process id, not as a
 * process group id, not as a session id (POSIX; on Linux the `struct pid`
 * outlives its process while any group or session refers to it). So while
 * any process of our session exists, zombies included, the id is ours and
 * nobody else can hold the number. Two consequences, which need no start
 * time (the host knows when the leader is reaped; the watchdog does not,
 * which is why the record keeps the leader's start time for it):
 *
 * - Before the leader is reaped, the process holding the id is our leader.
 * - After the leader is reaped (the registry says so when the command
 *   settles), any process holding the id proves that the number was given
 *   out again, which can only happen after every member of our session was
 *   gone: the session is over and is never signalled again.
 *
 * And a session once seen with no running member is over for good (a
 * zombie cannot fork, and nothing can join a session from outside), so that
 * verdict is kept. What this cannot tell, like a start-time check could not
 * either: a stranger that got the number, made it a session and whose
 * leader died leaving members, all between two of our looks. Survivors are
 * re-checked often (see `group_registry.ts`) to keep that window short. The
 * time between the leader's reaping and the settle (at most `graceMs`) is
 * covered by the first rule only: for the number to come round in it, the
 * whole session must have been reaped and the pid space gone round.
 *
 * @module
 */

import type { GroupSignal, ProcessAdapter } from "../adapter.ts";
import { killMarked, markedRunning, signalMarked } from "./marked.ts";
import { hasProc, type ProcEntry, type ProcTable } from "./proc_table.ts";

/**
 * What tells one session from any other, ever: its id and its leader's
 * start time in clock ticks since boot (0 when unknown). The id alone comes
 * round; the pair does not. What the watchdog's record lists.
 */
export interface SessionIdentity {
  /** The session id (the leader's pid). */
  readonly id: number;
  /** The leader's start time, as `/proc/<id>/stat` field 22 gives it. */
  readonly start: number;
  /**
   * A command mark whose carriers end with the session, wherever they went
   * (`setsid`): set for a terminal's command. Absent for the others, whose
   * termination reaches their session only.
   */
  readonly followedMark?: string;
}

/** One command's session, as the shell tracks it from spawn until it is gone. */
export class CommandSession implements SessionIdentity {
  /** The session id: the leader's pid, also its first process group's id. */
  readonly id: number;
  /**
   * The leader's start time (clock ticks since boot), 0 where there is no
   * `/proc`. The watchdog's record keeps it beside the id, so that after the
   * host is gone the watchdog can tell our leader from a stranger that got
   * the same pid (it has no other way to know whose the number is).
   */
  readonly start: number;
  readonly followedMark: string | undefined;
  /** The mark whose carriers a termination ends too: the followed one, or the command's own. */
  readonly #sweep: string | undefined;
  readonly #adapter: ProcessAdapter;
  readonly #table: ProcTable;
  /** The leader was reaped: from now on a process holding `id` is a stranger. */
  #reaped = false;
  /** Seen over (no running member, or the id seen given out again): never signalled again. */
  #over = false;
  /** Members seen by the last pass: re-checked one by one before asking for a pass. */
  #known: number[] = [];

  /**
   * Call right after the spawn, before the leader can have been reaped: the
   * process holding `leader` is ours, so its start time is our leader's.
   * Drops a pass taken earlier in this turn, which cannot know the session.
   *
   * @param adapter Signals groups.
   * @param leader The leader's pid.
   * @param table The host's process table.
   * @param followedMark The command's mark, when what carries it ends with the session (a terminal's command).
   * @param mark The command's mark otherwise: a termination (`kill()`, `close()`, a timeout) of the running
   *   command also ends every process that carries it, but it does not keep the session alive once its own
   *   processes are gone.
   */
  constructor(adapter: ProcessAdapter, leader: number, table: ProcTable, followedMark?: string, mark?: string) {
    this.#adapter = adapter;
    this.followedMark = followedMark;
    this.#sweep = followedMark ?? mark;
    this.#table = table;
    this.id = leader;
    this.start = hasProc ? table.read(leader)?.start ?? 0 : 0;
    table.forget();
  }

  /** Told once the leader has been reaped (its command settled). */
  leaderReaped(): void {
    this.#reaped = true;
  }

  /**
   * Whether any process of the session still runs; with a followed mark
   * (a terminal's command), also what left the session carrying the mark
   * (`setsid`), so that it stays a survivor that `kill()` and `close()` end.
   */
  alive(): boolean {
    if (!hasProc) return this.#adapter.signalGroup(this.id, 0);
    if (!this.#over) {
      // Cheap first: a member known from the last pass that still runs here is enough.
      if (this.#known.some((pid) => this.#runsHere(this.#table.read(pid)))) return true;
      if (this.#members().length > 0) return true;
    }
    return this.followedMark !== undefined && markedRunning(this.followedMark);
  }

  /**
   * Sends `signal` to every process group of the session; returns whether
   * anything was there to receive it.
   */
  signal(signal: Exclude<GroupSignal, 0>): boolean {
    if (!hasProc) return this.#adapter.signalGroup(this.id, signal);
    let reached = false;
    for (const group of new Set(this.#members().map((member) => member.pgrp))) {
      reached = this.#adapter.signalGroup(group, signal) || reached;
    }
    // What left the session with the mark gets the same signal, so that a termination ends it in the same steps.
    if (this.#sweep !== undefined) {
      reached = signalMarked(this.#adapter, this.#sweep, signal) > 0 || reached;
    }
    return reached;
  }

  /**
   * SIGKILLs what carries the command's mark outside the session (what the
   * command started with `setsid`), once the session itself has been
   * terminated; nothing for a session made without a mark.
   */
  killFollowed(): void {
    if (this.#sweep !== undefined) killMarked(this.#adapter, this.#sweep);
  }

  /** The running members as of this turn's pass; empty once the session is over. */
  #members(): readonly ProcEntry[] {
    if (this.#over) return [];
    const table = this.#table.snapshot();
    const holder = table.process(this.id);
    const members = holder !== undefined && this.#reaped ? [] : table.sessionMembers(this.id);
    this.#known = members.map((member) => member.pid);
    if (members.length === 0) this.#over = true;
    return members;
  }

  #runsHere(entry: ProcEntry | undefined): boolean {
    return entry !== undefined && entry.session === this.id && !entry.finished;
  }
}
