/**
 * What the operating system says about processes, read from /proc, so
 * tests check that a process is really gone instead of trusting the code
 * under test.
 */

import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** A process as /proc describes it. */
export interface ProcInfo {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  sid: number;
}

/** Reads /proc/<pid>/stat, or undefined when the process does not exist. */
export function procInfo(pid: number): ProcInfo | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
  return { pid, state: fields[0], ppid: Number(fields[1]), pgrp: Number(fields[2]), sid: Number(fields[3]) };
}

/** Whether `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const info = procInfo(pid);
  return info !== undefined && info.state !== "Z" && info.state !== "X";
}

/** The pids of every non-zombie process in group `pgid`. */
export function runningGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = procInfo(Number(entry));
    if (info && info.pgrp === pgid && info.state !== "Z" && info.state !== "X") members.push(info.pid);
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
