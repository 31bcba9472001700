/**
 * What the operating system says about processes, read from /proc, so
 * tests check that a process is really gone instead of trusting the code
 * under test: one process, the processes of a group, a session, a parent
 * or an environment marker, and a clean-up that kills only what is still
 * the process it was.
 *
 * Nothing here imports the library.
 */

import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

/** A process as /proc describes it. */
export interface ProcInfo {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  sid: number;
  /** How many threads it has (field 20); a zombie counts one, itself. */
  threads: number;
  /** Start time in clock ticks since boot: tells a recycled pid from the original. */
  start: string;
  /** The command name, as the kernel keeps it (at most 15 bytes). */
  comm: string;
}

/** Reads /proc/<pid>/stat, or undefined when the process does not exist. */
export function procInfo(pid: number): ProcInfo | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: the fields resume after the last ")".
  const close = line.lastIndexOf(")");
  const f = line.slice(close + 2).split(" ");
  return {
    pid,
    state: f[0],
    ppid: Number(f[1]),
    pgrp: Number(f[2]),
    sid: Number(f[3]),
    threads: Number(f[17]),
    start: f[19],
    comm: line.slice(line.indexOf("(") + 1, close),
  };
}

/**
 * Whether no thread of the process runs: dead (`X`, `x`), or a zombie whose
 * only thread is itself. A process whose main thread has exited while other
 * threads run shows `Z` too, and is alive.
 */
export function hasFinished(info: ProcInfo): boolean {
  if (info.state === "Z") return info.threads <= 1;
  return info.state === "X" || info.state === "x";
}

/** Whether `pid` exists and some thread of it runs. */
export function isRunning(pid: number): boolean {
  const info = procInfo(pid);
  return info !== undefined && !hasFinished(info);
}

/** Whether `pid` has exited and been reaped: nothing holds the number any more, not even a zombie. */
export function isReaped(pid: number): boolean {
  return procInfo(pid) === undefined;
}

/** The pids of every process now in /proc that `matches`, zombies included unless `matches` leaves them out. */
function processesWhere(matches: (info: ProcInfo) => boolean): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = procInfo(Number(entry));
    if (info !== undefined && matches(info)) found.push(info.pid);
  }
  return found;
}

/** The pids of every process in group `pgid` that still runs (zombies count as gone). */
export function runningGroupMembers(pgid: number): number[] {
  return processesWhere((info) => info.pgrp === pgid && !hasFinished(info));
}

/** The pids of every process whose session is one of `sids` and that still runs (zombies count as gone). */
export function runningInSessions(sids: ReadonlySet<number>): number[] {
  return processesWhere((info) => sids.has(info.sid) && !hasFinished(info));
}

/** The pids of every process of session `sid` that still runs (zombies count as gone). */
export function runningSessionMembers(sid: number): number[] {
  return runningInSessions(new Set([sid]));
}

/** Every process, zombies included, whose session is `sid`: while one exists, the id cannot be reused. */
export function sessionMembers(sid: number): number[] {
  return processesWhere((info) => info.sid === sid);
}

/** The pids of the children of `parent`, zombies included. */
export function childrenOf(parent: number): number[] {
  return processesWhere((info) => info.ppid === parent);
}

/**
 * The pids of every running process whose environment holds `name=value`.
 * Tests give each command a unique marker variable, so this finds the
 * command's descendants wherever they went: another process group, another
 * session (`setsid`), reparented to init. This process, zombies and
 * processes whose environment cannot be read (not ours) are skipped.
 */
export function runningWithEnv(name: string, value: string): number[] {
  const needle = `${name}=${value}`;
  return processesWhere((info) => {
    if (info.pid === process.pid || hasFinished(info)) return false;
    try {
      return readFileSync(`/proc/${info.pid}/environ`, "latin1").split("\0").includes(needle);
    } catch {
      return false;
    }
  });
}

/**
 * Processes a test may have to kill when it cleans up, each remembered with
 * its start time. A test that kills a pid it saw long ago may hit a stranger
 * that got the number since (on a busy machine ids come round within
 * seconds): `kill()` signals only the processes that are still the ones
 * remembered.
 */
export class Leftovers {
  readonly #seen = new Map<number, string>();

  /** Remembers `pid` as it is now; a pid that is already gone is not remembered. */
  add(...pids: number[]): void {
    for (const pid of pids) {
      const info = procInfo(pid);
      if (info !== undefined) this.#seen.set(pid, info.start);
    }
  }

  /** Remembers `pid` as the process that started at `start` (field 22 of its stat), recorded earlier by someone else. */
  addStarted(pid: number, start: string): void {
    this.#seen.set(pid, start);
  }

  /** SIGKILLs each remembered process that still runs and is still the one remembered. */
  kill(): void {
    for (const [pid, start] of this.#seen) {
      if (!stillRuns(pid, start)) continue;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
  }
}

/** Whether `pid` still runs (a zombie has ended) and is still the process that started at `start`, not a reuse. */
export function stillRuns(pid: number, start: string): boolean {
  const info = procInfo(pid);
  return info !== undefined && info.start === start && !hasFinished(info);
}
