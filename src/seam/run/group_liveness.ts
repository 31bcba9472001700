/**
 * Is a process group gone? `kill(-pgid, 0)` alone is not enough: it counts
 * zombies as alive, and orphaned zombies wait for PID 1 to reap them (about
 * 1.4 s on these machines). Where `/proc` exists, a group whose only members
 * are zombies counts as gone.
 *
 * @module
 */

import { readdirSync, readFileSync } from "node:fs";
import type { ProcessAdapter } from "../adapter.ts";

/** State letters of processes that no longer run: zombie and dead. */
const FINISHED_STATES = new Set(["Z", "X", "x"]);

/** `{ state, pgrp }` of a `/proc/<pid>/stat` line, or undefined when unreadable. */
function readStat(pid: string): { state: string; pgrp: number } | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ")".
  const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], pgrp: Number(fields[2]) };
}

/**
 * Whether some member of group `pgid` still runs, judged from `/proc`;
 * undefined when `/proc` cannot be read (macOS).
 */
function procGroupRuns(pgid: number): boolean | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const stat = readStat(entry);
    if (stat !== undefined && stat.pgrp === pgid && !FINISHED_STATES.has(stat.state)) return true;
  }
  return false;
}

/** Whether any process of group `pgid` is still running (zombies do not count where `/proc` tells). */
export function groupIsAlive(adapter: ProcessAdapter, pgid: number): boolean {
  // The probe is one syscall and answers most calls: a finished command's group is usually empty.
  if (!adapter.signalGroup(pgid, 0)) return false;
  return procGroupRuns(pgid) ?? true;
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits until group `pgid` is gone or `withinMs` has passed; returns whether
 * it is gone. Polls with a growing interval: fast for the common quick
 * death, cheap for a slow one.
 */
export async function waitGroupGone(adapter: ProcessAdapter, pgid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  let interval = 2;
  while (groupIsAlive(adapter, pgid)) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await delay(Math.min(interval, left));
    interval = Math.min(interval * 2, 50);
  }
  return true;
}
