/**
 * The processes of one command found by the mark in their environment
 * rather than by their session: what a terminal's command started with
 * `setsid` (or a daemon's double fork) has left the session that
 * termination signals, but still carries the `DSH_COMMAND_MARK` it
 * inherited. Only what descends from the command carries its mark, so
 * nothing else is signalled; a process that cleared its environment
 * (`env -i`) is not found.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import process from "node:process";
import type { ProcessAdapter } from "../adapter.ts";
import { hasProc, linuxProcReader } from "./proc_table.ts";

/**
 * The variable that carries a command's mark: set by the launch in every
 * command's environment (last, so no layer can forge or drop it), and
 * looked for by the watchdog and by {@linkcode killMarked}.
 */
export const MARK_VARIABLE = "DSH_COMMAND_MARK";

/** How many passes at most: a marked process may fork between a pass and its kill. */
const ROUNDS = 10;

/**
 * SIGKILLs every process whose environment holds `${MARK_VARIABLE}=<mark>`
 * (with the group it leads, when it leads one), pass after pass until a
 * pass finds none.
 *
 * @returns How many processes were signalled.
 */
export function killMarked(adapter: ProcessAdapter, mark: string): number {
  let signalled = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const found = signalMarked(adapter, mark, "SIGKILL");
    signalled += found;
    if (found === 0) break;
  }
  return signalled;
}

/**
 * Sends `signal` once to every marked process (a termination's SIGTERM,
 * which the processes may answer): to the group it leads, when it leads
 * one, and to the process itself whatever group it is in. Not only to the
 * groups whose leader is marked: a command's `setsid bash -c 'sleep A &
 * exec env -u DSH_COMMAND_MARK sleep B'` leaves a marked `sleep A` in a
 * group led by an unmarked process, and it must end too.
 *
 * @returns How many processes were signalled.
 */
export function signalMarked(adapter: ProcessAdapter, mark: string, signal: "SIGTERM" | "SIGKILL"): number {
  if (!hasProc) return 0;
  const needle = needleOf(mark);
  let found = 0;
  for (const pid of linuxProcReader.pids()) {
    const entry = linuxProcReader.read(pid);
    if (entry === undefined || entry.finished || !holds(pid, needle)) continue;
    const reached = entry.pgrp === pid ? adapter.signalGroup(pid, signal) : signalProcess(pid, signal);
    if (reached) found++;
  }
  return found;
}

/** Sends `signal` to the one process `pid`; false when it is gone. */
function signalProcess(pid: number, signal: "SIGTERM" | "SIGKILL"): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether any process that carries `mark` still runs (a zombie does not). */
export function markedRunning(mark: string): boolean {
  if (!hasProc) return false;
  const needle = needleOf(mark);
  for (const pid of linuxProcReader.pids()) {
    const process = linuxProcReader.read(pid);
    if (process !== undefined && !process.finished && holds(pid, needle)) return true;
  }
  return false;
}

function needleOf(mark: string): Uint8Array {
  return new TextEncoder().encode(`\0${MARK_VARIABLE}=${mark}\0`);
}

/** Whether `/proc/<pid>/environ` holds `needle` (the entry between NULs; the first entry gets a leading NUL). */
function holds(pid: number, needle: Uint8Array): boolean {
  let environ: Uint8Array;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false; // gone, or not ours to read
  }
  const text = new Uint8Array(environ.length + 2);
  text.set(environ, 1);
  return indexOf(text, needle) >= 0;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
