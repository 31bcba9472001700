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
 * Internal: not exported from the package.
 *
 * @module
 */

import { closeSync, existsSync, openSync, readdirSync, readSync } from "node:fs";

/** One process as `/proc/<pid>/stat` describes it (only the fields we use). */
export interface ProcEntry {
  /** The process id. */
  readonly pid: number;
  /** Its parent's pid (0 when its parent is outside our pid namespace). */
  readonly ppid: number;
  /** Its process group. */
  readonly pgrp: number;
  /** Its session. */
  readonly session: number;
  /**
   * No thread of it runs: a zombie or dead process, waiting to be reaped; it
   * counts as gone and cannot fork. A process whose main thread has exited
   * while other threads run also shows state `Z`, but it is not finished.
   */
  readonly finished: boolean;
  /** When it started, in clock ticks since boot: tells the process from a later one given the same pid. */
  readonly start: number;
}

/** Whether this system has a `/proc` we can read (Linux); elsewhere (macOS) groups are probed with signal 0. */
export const hasProc: boolean = existsSync("/proc/self/stat");

/**
 * Fields 1 to 22 of a stat line take at most some 400 bytes (the command
 * name is at most 64 bytes, each number at most 20 digits), so 1 KiB
 * always holds them even when the rest of a long line is cut off.
 */
const statBuffer = new Uint8Array(1024);

const CLOSE_PAREN = 0x29;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const MINUS = 0x2d;
const ZERO = 0x30;
const STATE_ZOMBIE = 0x5a; // Z
const STATE_DEAD = 0x58; // X
const STATE_DEAD_LOWER = 0x78; // x

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

/** Field numbers of `/proc/<pid>/stat` (proc(5)), counting from 1; fields 3 on follow the last ")". */
const FIELD_PPID = 4;
const FIELD_PGRP = 5;
const FIELD_SESSION = 6;
const FIELD_THREADS = 20;
const FIELD_START = 22;

/**
 * Parses the stat line in `statBuffer[0, length)`. The command name (field
 * 2) may hold spaces and parentheses, so the fields resume after the last
 * ")"; nothing after it can be a ")" (state letter and numbers only).
 */
function parseStat(pid: number, length: number): ProcEntry | undefined {
  let close = length - 1;
  while (close >= 0 && statBuffer[close] !== CLOSE_PAREN) close--;
  let at = close + 2;
  if (close < 0 || at >= length) return undefined;
  const state = statBuffer[at];
  at += 2;
  let ppid = 0;
  let pgrp = 0;
  let session = 0;
  let threads = 0;
  // Fields 4 (ppid) to 22 (starttime), each a number followed by a space.
  for (let field = 4; field <= FIELD_START; field++) {
    let value = 0;
    let negative = false;
    if (statBuffer[at] === MINUS) {
      negative = true;
      at++;
    }
    while (at < length && statBuffer[at] !== SPACE) value = value * 10 + statBuffer[at++] - ZERO;
    if (at >= length) return undefined;
    at++;
    if (negative) value = -value;
    if (field === FIELD_PPID) ppid = value;
    else if (field === FIELD_PGRP) pgrp = value;
    else if (field === FIELD_SESSION) session = value;
    else if (field === FIELD_THREADS) threads = value;
    else if (field === FIELD_START) {
      return { pid, ppid, pgrp, session, finished: isFinished(state, threads), start: value };
    }
  }
  return undefined;
}

/**
 * `Z` (zombie) describes the main thread only: when it has called
 * `pthread_exit` and other threads still run, the process shows `Z` and is
 * alive (its thread count says so: a real zombie counts one, itself). `X`
 * and `x` are dead outright.
 */
function isFinished(state: number, threads: number): boolean {
  if (state === STATE_ZOMBIE) return threads <= 1;
  return state === STATE_DEAD || state === STATE_DEAD_LOWER;
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

/**
 * Where a {@linkcode ProcTable} reads processes from: `/proc` in
 * production. Tests give a reader of their own, to count the passes.
 */
export interface ProcReader {
  /** The pids that exist now. */
  pids(): Iterable<number>;
  /** One process, or undefined when it is gone. */
  read(pid: number): ProcEntry | undefined;
}

/** Reads the real `/proc`. */
export const linuxProcReader: ProcReader = {
  *pids(): Iterable<number> {
    for (const name of readdirSync("/proc")) {
      const first = name.charCodeAt(0);
      if (first >= 48 && first <= 57) yield Number(name);
    }
  },
  read: readProc,
};

/**
 * The process table as the host process sees it, read at most once per
 * turn of the event loop: the first question in a turn reads every process,
 * later questions in the same turn (and its microtasks) share that pass.
 * Within one turn the table is as stale as the turn is long; across turns
 * it is always read again. One per host process (see `host.ts`).
 */
export class ProcTable {
  readonly #reader: ProcReader;
  #current: ProcSnapshot | undefined;

  /** @param reader Where processes are read from. */
  constructor(reader: ProcReader = linuxProcReader) {
    this.#reader = reader;
  }

  /** This turn's pass, read now when there is none yet. */
  snapshot(): ProcSnapshot {
    if (this.#current !== undefined) return this.#current;
    const entries: ProcEntry[] = [];
    for (const pid of this.#reader.pids()) {
      const entry = this.#reader.read(pid);
      if (entry !== undefined) entries.push(entry);
    }
    const snapshot = new ProcSnapshot(entries);
    this.#current = snapshot;
    queueMicrotask(() => {
      if (this.#current === snapshot) this.#current = undefined;
    });
    return snapshot;
  }

  /** One process as it is now, outside any pass. */
  read(pid: number): ProcEntry | undefined {
    return this.#reader.read(pid);
  }

  /**
   * Drops this turn's pass, so the next question reads the table again.
   * Called at each spawn: a pass taken before a session existed must never
   * be what judges it (it would look over before it began).
   */
  forget(): void {
    this.#current = undefined;
  }
}
