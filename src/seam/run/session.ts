/**
 * A command's session: the leader is spawned as a session leader, so its
 * pid is the id of its session and of its first process group. Commands
 * may make more groups inside the session (`timeout`, `set -m`), so
 * termination and liveness look at the whole session where `/proc` tells
 * who is in it, and at the leader's group elsewhere (macOS).
 *
 * A session id is a pid that the system may hand out again once everything
 * in the session is gone: the leader's start time, recorded at spawn, tells
 * our session from a stranger that got the same number.
 *
 * @module
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { GroupSignal, ProcessAdapter } from "../adapter.ts";

/** What `/proc/<pid>/stat` says about a process. */
interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
  session: number;
  startTime: string;
}

const hasProc = existsSync("/proc/self/stat");

/** Zombie and dead: finished processes waiting to be reaped, which count as gone. */
const isFinished = (state: string): boolean => state === "Z" || state === "X" || state === "x";

function readStat(pid: number): ProcStat | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ")".
  const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
  return { pid, state: fields[0], pgrp: Number(fields[2]), session: Number(fields[3]), startTime: fields[19] };
}

/** Every running (not finished) process of session `sid`. */
function scanSession(sid: number): ProcStat[] {
  const members: ProcStat[] = [];
  for (const entry of readdirSync("/proc")) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const stat = readStat(Number(entry));
    if (stat !== undefined && stat.session === sid && !isFinished(stat.state)) members.push(stat);
  }
  return members;
}

/** One command's session, as the shell tracks it from spawn until it is gone. */
export class CommandSession {
  /** The session id: the leader's pid, also its first process group's id. */
  readonly id: number;
  readonly #adapter: ProcessAdapter;
  readonly #leaderStart: string | undefined;
  /** Members seen by the last scan: re-checked one by one before scanning again. */
  #known: number[] = [];

  /**
   * Call right after the spawn, while the leader cannot have been reaped.
   *
   * @param adapter Signals groups.
   * @param leader The leader's pid.
   */
  constructor(adapter: ProcessAdapter, leader: number) {
    this.#adapter = adapter;
    this.id = leader;
    this.#leaderStart = hasProc ? readStat(leader)?.startTime : undefined;
  }

  /** False when the id now belongs to someone else's process: then it must never be signalled. */
  isOurs(): boolean {
    if (!hasProc) return true;
    const holder = readStat(this.id);
    return holder === undefined || holder.startTime === this.#leaderStart;
  }

  /**
   * A cheap check for the hot path: whether the leader's group still has a
   * member (zombies aside). Groups the command made for itself are not
   * looked for here.
   */
  groupAlive(): boolean {
    if (!this.#adapter.signalGroup(this.id, 0)) return false;
    return !hasProc || this.alive();
  }

  /** Whether any process of the session still runs. */
  alive(): boolean {
    if (!hasProc) return this.#adapter.signalGroup(this.id, 0);
    this.#known = this.#known.filter((pid) => {
      const stat = readStat(pid);
      return stat !== undefined && stat.session === this.id && !isFinished(stat.state);
    });
    if (this.#known.length > 0) return true;
    if (!this.isOurs()) return false;
    this.#known = scanSession(this.id).map((member) => member.pid);
    return this.#known.length > 0;
  }

  /**
   * Sends `signal` to every process group of the session; returns whether
   * anything was there to receive it.
   */
  signal(signal: Exclude<GroupSignal, 0>): boolean {
    if (!this.isOurs()) return false;
    let reached = this.#adapter.signalGroup(this.id, signal);
    if (!hasProc) return reached;
    const members = scanSession(this.id);
    this.#known = members.map((member) => member.pid);
    for (const group of new Set(members.map((member) => member.pgrp))) {
      if (group !== this.id) reached = this.#adapter.signalGroup(group, signal) || reached;
    }
    return reached;
  }
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits until `session` is gone or `withinMs` has passed; returns whether
 * it is gone. Polls with a growing interval: fast for the common quick
 * death, cheap for a slow one.
 */
export async function waitSessionGone(session: CommandSession, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  let interval = 2;
  while (session.alive()) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await delay(Math.min(interval, left));
    interval = Math.min(interval * 2, 50);
  }
  return true;
}
