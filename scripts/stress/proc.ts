/**
 * What the operating system says, read from /proc: processes (state,
 * group, session, start time, environment marker), this process's file
 * descriptors and its direct children. The stress suite trusts these, not
 * the library's own bookkeeping.
 *
 * @module
 */

import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { hasFinished, type ProcInfo, procInfo } from "../../tests/helpers/proc.ts";

/** A process as /proc/<pid>/stat describes it: the test helpers' reader, so both read /proc one way. */
export type Stat = ProcInfo;

/** Reads /proc/<pid>/stat, or undefined when there is no such process. */
export const readStat: (pid: number) => Stat | undefined = procInfo;

/** No thread of it runs (a zombie or dead process): it waits to be reaped and counts as gone. */
export const isFinished: (stat: Stat) => boolean = hasFinished;

/** Every process now in /proc. */
export function allStats(): Stat[] {
  const out: Stat[] = [];
  for (const entry of readdirSync("/proc")) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const stat = readStat(Number(entry));
    if (stat !== undefined) out.push(stat);
  }
  return out;
}

/** The environment a process was started with, as `NAME=value` strings (empty when unreadable). */
export function environ(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
  } catch {
    return [];
  }
}

/** The command line of a process, space-joined (empty when unreadable). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/** This process's open file descriptors as `fd -> target`, without the one used to list them. */
export function fdList(): string[] {
  const out: string[] = [];
  for (const name of readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${name}`);
    } catch {
      continue; // the directory handle that listed them, already closed
    }
    if (/^\/proc\/\d+\/fd$/.test(target)) continue;
    out.push(`${name} -> ${target}`);
  }
  return out.sort((a, b) => parseInt(a) - parseInt(b));
}

/** The pids of this process's direct children (from every thread's `children` list). */
export function hostChildren(): number[] {
  const pids: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return pids;
  }
  for (const tid of tasks) {
    let text: string;
    try {
      text = readFileSync(`/proc/self/task/${tid}/children`, "latin1");
    } catch {
      continue;
    }
    for (const word of text.split(" ")) if (word.trim() !== "") pids.push(Number(word));
  }
  return pids;
}

/** CPU seconds (user + system) from a /proc stat line's fields 14-17. */
function cpuOf(path: string): { self: number; children: number } {
  const line = readFileSync(path, "latin1");
  const f = line.slice(line.lastIndexOf(")") + 2).split(" ").map(Number);
  // After the comm: state is index 0, so utime/stime/cutime/cstime are 11..14.
  return { self: (f[11] + f[12]) / 100, children: (f[13] + f[14]) / 100 };
}

/** CPU seconds used so far: this process, its main thread, and its reaped children. */
export function cpuSeconds(): { process: number; mainThread: number; children: number } {
  const all = cpuOf("/proc/self/stat");
  const main = cpuOf(`/proc/self/task/${Deno.pid}/stat`);
  return { process: all.self, mainThread: main.self, children: all.children };
}
