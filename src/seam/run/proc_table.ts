/**
 * The process table, read from `/proc` (Linux): who is in which session and
 * process group. One pass over `/proc` serves every question asked in the
 * same turn of the event loop, so terminating or checking hundreds of
 * sessions at once costs one pass, not one per session.
 *
 * Each `/proc/<pid>/stat` is read with `openSync`/`readSync` into one reused
 * 1 KiB buffer and parsed in place: `readFileSync` would allocate a 64 KiB
 * buffer per file, which made scans of a few hundred processes slow on Node.
 *
 * Internal: not exported from the package. {@linkcode procScanCount} exists
 * for tests, which check that a `close()` with many survivors does a bounded
 * number of passes.
 *
 * @module
 */

import { closeSync, existsSync, openSync, readdirSync, readSync } from "node:fs";

/** One process as `/proc/<pid>/stat` describes it (only the fields we use). */
export interface ProcEntry {
  /** The process id. */
  readonly pid: number;
  /** Its process group. */
  readonly pgrp: number;
  /** Its session. */
  readonly session: number;
  /** Zombie or dead: finished, waiting to be reaped; it counts as gone and cannot fork. */
  readonly finished: boolean;
}

/** Whether this system has a `/proc` we can read (Linux); elsewhere (macOS) groups are probed with signal 0. */
export const hasProc: boolean = existsSync("/proc/self/stat");

/**
 * Fields 1 to 6 of a stat line take at most some 150 bytes (the command
 * name is at most 64), so 1 KiB always holds them even when the rest of a
 * long line is cut off.
 */
const statBuffer = new Uint8Array(1024);

const CLOSE_PAREN = 0x29;
const NEWLINE = 0x0a;
const SPACE = 0x20;

/**
 * Reads `/proc/<pid>/stat`; undefined when the process does not exist (or
 * vanished while being read).
 */
export function readProc(pid: number): ProcEntry | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/stat`, "r");
  } catch {
    return undefined;
  }
  let length = 0;
  try {
    // /proc hands the whole line to the first read; loop anyway in case a read comes up short.
    while (length < statBuffer.length) {
      const n = readSync(fd, statBuffer, length, statBuffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (statBuffer[length - 1] === NEWLINE) break;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  return parseStat(pid, length);
}

/**
 * Parses the stat line in `statBuffer[0, length)`. The command name (field
 * 2) may hold spaces and parentheses, so the fields resume after the last
 * ")"; nothing after it can be a ")" (state letter and numbers only).
 */
function parseStat(pid: number, length: number): ProcEntry | undefined {
  let close = length - 1;
  while (close >= 0 && statBuffer[close] !== CLOSE_PAREN) close--;
  // Fields after ")": state, ppid, pgrp, session, each followed by a space.
  let at = close + 2;
  if (close < 0 || at >= length) return undefined;
  const state = statBuffer[at];
  at += 2;
  const fields = [0, 0, 0];
  for (let field = 0; field < 3; field++) {
    let value = 0;
    let negative = false;
    if (statBuffer[at] === 0x2d) {
      negative = true;
      at++;
    }
    while (at < length && statBuffer[at] !== SPACE) value = value * 10 + statBuffer[at++] - 0x30;
    if (at >= length) return undefined;
    fields[field] = negative ? -value : value;
    at++;
  }
  // Z: zombie; X and x: dead.
  const finished = state === 0x5a || state === 0x58 || state === 0x78;
  return { pid, pgrp: fields[1], session: fields[2], finished };
}

/** What one pass over `/proc` saw. */
export class ProcSnapshot {
  /** Every process seen, finished ones included: a pid held by anyone is listed. */
  readonly #byPid = new Map<number, ProcEntry>();
  /** The running (not finished) members of each session. */
  readonly #bySession = new Map<number, ProcEntry[]>();

  /** @param entries Every process of one pass. */
  constructor(entries: Iterable<ProcEntry>) {
    for (const entry of entries) {
      this.#byPid.set(entry.pid, entry);
      if (entry.finished) continue;
      const members = this.#bySession.get(entry.session);
      if (members === undefined) this.#bySession.set(entry.session, [entry]);
      else members.push(entry);
    }
  }

  /** The process holding `pid`, finished or not. */
  process(pid: number): ProcEntry | undefined {
    return this.#byPid.get(pid);
  }

  /** The running members of session `sid` (empty when none). */
  sessionMembers(sid: number): readonly ProcEntry[] {
    return this.#bySession.get(sid) ?? [];
  }
}

let scans = 0;
let current: ProcSnapshot | undefined;

/**
 * The process table as of this turn of the event loop: the first call in a
 * turn reads `/proc`, later calls in the same turn (and its microtasks)
 * share that pass. Within one turn the table is as stale as the turn is
 * long; across turns it is always read again.
 */
export function procSnapshot(): ProcSnapshot {
  if (current !== undefined) return current;
  const entries: ProcEntry[] = [];
  for (const name of readdirSync("/proc")) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const entry = readProc(Number(name));
    if (entry !== undefined) entries.push(entry);
  }
  scans++;
  const snapshot = new ProcSnapshot(entries);
  current = snapshot;
  queueMicrotask(() => {
    if (current === snapshot) current = undefined;
  });
  return snapshot;
}

/**
 * Drops this turn's pass, so the next question reads `/proc` again. Called
 * at each spawn: a pass taken before a session existed must never be what
 * judges it (it would look over before it began).
 */
export function forgetProcSnapshot(): void {
  current = undefined;
}

/** How many passes over `/proc` this module has made (for tests). */
export function procScanCount(): number {
  return scans;
}
