/**
 * What the operating system says about processes, read from /proc, so
 * tests check that a process is really gone instead of trusting the code
 * under test.
 */

import { readdirSync, readFileSync, readlinkSync } from "node:fs";
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

/** The pids of every non-zombie process in group `pgid`. */
export function runningGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = procInfo(Number(entry));
    if (info && info.pgrp === pgid && !hasFinished(info)) members.push(info.pid);
  }
  return members;
}

/** Where file descriptor `fd` of `pid` points (e.g. `/dev/null`, `pipe:[123]`). */
export function fdTarget(pid: number, fd: number): string {
  return readlinkSync(`/proc/${pid}/fd/${fd}`);
}

/**
 * Polls `condition` until it holds or `withinMs` passes; returns whether it
 * held. For OS state that has no event to wait on (a reparented process
 * disappearing).
 */
export async function eventually(condition: () => boolean, withinMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** Reads whole-number pids written one per line to `file`. */
export function readPids(file: string): number[] {
  return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map(Number);
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

  /** SIGKILLs each remembered process that still runs and is still the one remembered. */
  kill(): void {
    for (const [pid, start] of this.#seen) {
      const info = procInfo(pid);
      if (info === undefined || info.start !== start || hasFinished(info)) continue;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
  }
}
