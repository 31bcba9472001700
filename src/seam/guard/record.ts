/**
 * The watchdog's record of live sessions: a private append-only file of
 * `+sid start` and `-sid start` lines (the session id and its leader's start
 * time), written synchronously by the host and read by
 * the watchdog only once, when the host is gone. Appending to a file wakes
 * no process, so a command costs a few small writes and nothing else; and a
 * line written is in the kernel's page cache, which survives a SIGKILL of
 * the host.
 *
 * A session's id is known only once `spawn` has returned, and by then the
 * command already runs: one that kills the host at once would die unlisted.
 * So before each spawn the host writes `?mark`, the random mark the
 * command's environment carries ({@linkcode MARK_VARIABLE}), and the `+`
 * line that follows the spawn settles it. A record whose last `?` line has
 * no `+` after it means the host died in that window: the watchdog then
 * finds the command's processes by the mark in their environment.
 *
 * @module
 */

import { closeSync, mkdtempSync, openSync, renameSync, rmdirSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ShellArgumentError, ShellSpawnError } from "../errors.ts";
import type { SessionIdentity } from "../session/session.ts";
import { randomHex } from "../random_hex.ts";

/** The record's file name inside its private directory. */
export const RECORD_FILE = "record";
/** Where a compaction writes the live set before renaming it over {@linkcode RECORD_FILE}. */
export const NEXT_FILE = "record.next";

// The variable every local command's environment carries, set to a fresh random mark for each command: how the
// watchdog finds a command whose host died before its session could be recorded, and a terminal's command wherever
// it went. Defined beside the sweep that reads it (the session folder comes before this one).
export { MARK_VARIABLE } from "../session/marked.ts";

/** A mark: 32 lowercase hex digits (128 random bits), so no process carries one by chance. */
const MARK_PATTERN = /^[0-9a-f]{32}$/;

/**
 * A new random mark for one command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newMark } from "./record.ts";
 * assert.match(newMark(), /^[0-9a-f]{32}$/);
 * assert.notEqual(newMark(), newMark());
 * ```
 */
export function newMark(): string {
  return randomHex(16);
}

/**
 * The file is compacted once it has grown by this many bytes since the last
 * compaction, or by twice the compacted size if that is more (so a large
 * live set is not rewritten at every line). About 60 commands, each a `?mark`
 * line of 34 bytes and two of some 15: the watchdog's replay stays short, and a
 * compaction, which writes only the few live sessions, is rare.
 */
export const COMPACT_AT_BYTES = 4 * 1024;

/**
 * The live sessions a record lists, replayed line by line the way the
 * watchdog's script does: `+sid start` adds one, `-sid start` takes one
 * away (the same pid given to two of our sessions, one after the other,
 * has two start times, so each line names exactly one session; the host
 * never removes a session it has not added, and such a line does nothing).
 * Lines that are not `+` or `-`, a whole number above 1, a space and a
 * whole number are ignored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { replayRecord } from "./record.ts";
 * assert.deepEqual(replayRecord("+12 500\n+13 501\n-12 500\n+14 502\n"), [
 *   { id: 13, start: 501 },
 *   { id: 14, start: 502 },
 * ]);
 * ```
 */
export function replayRecord(text: string): SessionIdentity[] {
  const counts = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^([+-])([1-9][0-9]*) ([0-9]+)$/.exec(line);
    if (match === null || match[2] === "1") continue;
    const key = `${match[2]} ${match[3]}`;
    const count = counts.get(key) ?? 0;
    if (match[1] === "+") counts.set(key, count + 1);
    else if (count > 0) counts.set(key, count - 1);
  }
  return [...counts].filter(([, count]) => count > 0).map(([key]) => {
    const [id, start] = key.split(" ").map(Number);
    return { id, start };
  });
}

/**
 * The mark of a spawn the record says was under way when it ends: the last
 * `?mark` line, unless a `+` line follows it. The watchdog's script reads it
 * the same way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pendingMark } from "./record.ts";
 * const mark = "0123456789abcdef0123456789abcdef";
 * assert.equal(pendingMark(`+12 500\n?${mark}\n`), mark);
 * assert.equal(pendingMark(`?${mark}\n+12 500\n`), undefined);
 * ```
 */
export function pendingMark(text: string): string | undefined {
  let mark: string | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("?")) mark = MARK_PATTERN.test(line.slice(1)) ? line.slice(1) : undefined;
    else if (line.startsWith("+")) mark = undefined;
  }
  return mark;
}

/**
 * The marks a record says to follow when it ends: each `*mark` line not
 * taken back by a later `/mark` line (marks of 32 lowercase hex digits
 * only). The watchdog's script reads it the same way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { followedMarks } from "./record.ts";
 * const [a, b] = ["0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"];
 * assert.deepEqual(followedMarks(`+12 500\n*${a}\n+13 501\n*${b}\n-12 500\n/${a}\n`), [b]);
 * ```
 */
export function followedMarks(text: string): string[] {
  const marks: string[] = [];
  for (const line of text.split("\n")) {
    const mark = line.slice(1);
    if (!MARK_PATTERN.test(mark)) continue;
    if (line.startsWith("*")) marks.push(mark);
    else if (line.startsWith("/")) {
      const at = marks.indexOf(mark);
      if (at >= 0) marks.splice(at, 1);
    }
  }
  return marks;
}

/**
 * The record file of one watchdog, in a directory of its own created with
 * `mkdtemp` (mode 0700, unpredictable name); the file is created with
 * `O_EXCL` and mode 0600, so nothing another user planted is ever opened
 * or followed. Every method is synchronous and throws on an I/O error.
 */
export class WatchdogRecord {
  /** The private directory holding the record. */
  readonly dir: string;
  /** `"sid start"` → how many times it is listed. */
  readonly #live = new Map<string, number>();
  readonly #compactAt: number;
  /** The mark of the spawn under way, until its session is added. */
  #pending: string | undefined;
  /** `"sid start"` → the mark the watchdog follows for that session (a terminal's command). */
  readonly #followed = new Map<string, string>();
  #fd: number;
  /** Bytes appended since the file was created or last compacted. */
  #appended = 0;
  /** When {@linkcode #appended} passes this, the file is compacted. */
  #threshold: number;

  /**
   * Creates the directory and the empty record.
   *
   * @param parent Where the private directory is created (the OS temp dir).
   * @param compactAt The growth, in bytes, that triggers a compaction.
   */
  constructor(parent: string, compactAt: number = COMPACT_AT_BYTES) {
    this.dir = mkdtempSync(join(parent, "dsh-watchdog-"));
    this.#compactAt = compactAt;
    this.#threshold = compactAt;
    try {
      this.#fd = openSync(this.path, "ax", 0o600);
    } catch (error) {
      rmdirSync(this.dir);
      throw error;
    }
  }

  /** The record file's path. */
  get path(): string {
    return join(this.dir, RECORD_FILE);
  }

  /** The sessions listed as live, as the watchdog would replay the file now. */
  live(): SessionIdentity[] {
    return [...this.#live.keys()].map((key) => {
      const [id, start] = key.split(" ").map(Number);
      return { id, start };
    });
  }

  /**
   * Records that a command carrying `mark` is about to be spawned. Throws
   * `ShellArgumentError` (`ERR_SHELL_ARGUMENT`) on a mark that is not 32
   * lowercase hex digits: the watchdog's script would ignore it.
   */
  starting(mark: string): void {
    if (!MARK_PATTERN.test(mark)) throw new ShellArgumentError("mark", `not a command mark: ${JSON.stringify(mark)}`);
    // Already the spawn under way (announced by `add`'s `next`): the file says so, nothing to write.
    if (this.#pending === mark) return;
    this.#pending = mark;
    this.#append(`?${mark}\n`);
  }

  /**
   * Records that a session started; it settles the spawn under way. A
   * session with a followed mark also gets a `*mark` line: the watchdog
   * kills what carries that mark, wherever it went, until the session is
   * removed (`/mark`).
   *
   * @param next A mark announced ahead, in the same write: the record then
   *   lists it as the spawn under way (`?next`) until the next `+` line, so
   *   that the next command carrying it has nothing to write before its
   *   spawn (`starting(next)` writes nothing). Until that command starts, no
   *   process carries it, and a watchdog that finds it pending kills nothing
   *   more.
   */
  add(session: SessionIdentity, next?: string): void {
    if (next !== undefined && !MARK_PATTERN.test(next)) {
      throw new ShellArgumentError("next", `not a command mark: ${JSON.stringify(next)}`);
    }
    // Set before the write: a compaction that this write triggers keeps the announced mark pending.
    this.#pending = next;
    const announce = next === undefined ? "" : `?${next}\n`;
    const key = `${session.id} ${session.start}`;
    this.#live.set(key, (this.#live.get(key) ?? 0) + 1);
    const followed = Object.hasOwn(session, "followedMark") ? session.followedMark : undefined;
    if (followed !== undefined && MARK_PATTERN.test(followed)) {
      this.#followed.set(key, followed);
      this.#append(`+${key}\n*${followed}\n${announce}`);
    } else this.#append(`+${key}\n${announce}`);
  }

  /** Records that a session is gone, so the watchdog never signals its id. */
  remove(session: SessionIdentity): void {
    const key = `${session.id} ${session.start}`;
    const count = this.#live.get(key);
    if (count === undefined) return;
    if (count > 1) this.#live.set(key, count - 1);
    else this.#live.delete(key);
    const followed = this.#followed.get(key);
    if (followed !== undefined && count === 1) {
      this.#followed.delete(key);
      this.#append(`-${key}\n/${followed}\n`);
    } else this.#append(`-${key}\n`);
  }

  /** Closes the file and removes it and its directory; errors are ignored. */
  dispose(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // Already closed.
    }
    for (const name of [RECORD_FILE, NEXT_FILE]) {
      try {
        unlinkSync(join(this.dir, name));
      } catch {
        // Not there.
      }
    }
    try {
      rmdirSync(this.dir);
    } catch {
      // Gone already (the watchdog may have removed it).
    }
  }

  #append(line: string): void {
    const written = writeSync(this.#fd, line);
    // Only a full disk cuts a write short; the record is no longer to be trusted (the watchdog gives it up). A
    // ShellSpawnError, for the record is written as commands are spawned, and names the file.
    if (written !== line.length) {
      throw new ShellSpawnError(`short write to the watchdog's record: ${this.path}`, this.path);
    }
    this.#appended += written;
    if (this.#appended > this.#threshold) this.#compact();
  }

  /**
   * Rewrites the record as just the live set: written to a new file, then
   * renamed over the old one. A rename is atomic, so a watchdog that reads
   * the record at any moment (the host died mid-compaction) sees either the
   * whole old file or the whole new one.
   */
  #compact(): void {
    const next = join(this.dir, NEXT_FILE);
    // Only a compaction that failed half-way leaves it; the directory is ours alone.
    try {
      unlinkSync(next);
    } catch {
      // Not there: the usual case.
    }
    const fd = openSync(next, "ax", 0o600);
    let text = "";
    for (const [key, count] of this.#live) text += `+${key}\n`.repeat(count);
    for (const mark of this.#followed.values()) text += `*${mark}\n`;
    // The spawn under way stays under way: its line is what this compaction was triggered by, or came before.
    if (this.#pending !== undefined) text += `?${this.#pending}\n`;
    try {
      writeSync(fd, text);
      renameSync(next, this.path);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    closeSync(this.#fd);
    this.#fd = fd;
    this.#appended = 0;
    this.#threshold = Math.max(this.#compactAt, 2 * text.length);
  }
}
