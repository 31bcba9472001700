/**
 * Reads what a session's command left (`script.ts`) and turns it into the
 * change the session takes: the directory it ended in, and the variables
 * it added, changed or unset, against the environment it was given.
 *
 * @module
 */

import { closeSync, constants, fstatSync, openSync, read, rmSync } from "node:fs";
import { DSH_ENV_PREFIX } from "../env/merge.ts";
import type { EnvPatch } from "../types.ts";
import { exportedVariables } from "./export_list.ts";
import { EXPORT_LISTING, STATE_END } from "./script.ts";

/**
 * Names a session never takes: the shell's own bookkeeping (`_`, `PWD` and
 * `OLDPWD`, which the directory stands for; `SHLVL`, which every shell
 * raises by one), the managed `DSH_*` channel and exported functions
 * (`BASH_FUNC_*`: functions do not carry over). The managed prefixes are
 * matched whatever their case, as everywhere: `dsh_owner` is no more a
 * command's to hand on than `DSH_OWNER`.
 */
export function carriesOver(name: string): boolean {
  return !(name === "_" || name === "PWD" || name === "OLDPWD" || name === "SHLVL" || MANAGED.test(name));
}

/** The managed prefixes, in any case. */
const MANAGED = new RegExp(`^(${DSH_ENV_PREFIX}|BASH_FUNC_)`, "i");

/** A name a POSIX shell can give a variable. */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What one command changed. */
export interface StateChange {
  /** The absolute directory the command ended in. */
  readonly cwd: string;
  /** Each variable it added or changed, with its value; each it unset (or unexported), as `undefined`. */
  readonly env: EnvPatch;
}

/** What a session's command left: the change, and why there is none when it was refused. */
export interface TakenState {
  /** The change it describes; undefined when there was none whole, or it was refused. */
  readonly change: StateChange | undefined;
  /** One line saying why the state was refused (the session stays as it was); undefined otherwise. */
  readonly note?: string;
}

/**
 * The file the library made for one command's state, held open from then
 * on: the state is read through this fd, never through the path again, so
 * whatever the command puts at the path (a FIFO, a symlink, another file)
 * is never opened by the host.
 */
export interface StateFile {
  /** Where it is (for the command's trap, or the sandbox's copier). */
  readonly path: string;
  /** The host's own fd on it. */
  readonly fd: number;
}

/** Makes the empty state file at `path` (0600; never an existing file, never through a symlink) and keeps it open. */
export function makeStateFile(path: string): StateFile {
  const flags = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  return { path, fd: openSync(path, flags, 0o600) };
}

/** Closes and removes a state file that will not be read (its command never started). */
export function dropStateFile(file: StateFile): void {
  closeSync(file.fd);
  rmSync(file.path, { force: true });
}

/** A file's blocks are 512 bytes (POSIX `st_blocks`); this much of a file may be unallocated without being sparse. */
const SPARSE_SLACK = 64 * 1024;

/**
 * Reads and removes the state in `file`, against `given` (the command's
 * environment as spawned), reading at most `maxBytes` into memory, through
 * the host's own fd (`makeStateFile`), off the event loop. A file the
 * command removed or replaced, one larger than `maxBytes`, a sparse one,
 * or one that grows while it is read is refused, with a note.
 */
export async function takeState(
  file: StateFile,
  given: Readonly<Record<string, string>>,
  maxBytes: number,
): Promise<TakenState> {
  try {
    return stateOf(await readBounded(file.fd, maxBytes), given);
  } finally {
    dropStateFile(file);
  }
}

/**
 * What a state read back means, against `given` (the command's environment
 * as it was started): a dump's bytes, or why they were refused (a note),
 * however they were read (here, or by an engine's supervisor).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stateOf } from "./state.ts";
 * const dump = new TextEncoder().encode("/tmp\n\0A=2\0dsh-state-end\0");
 * assert.deepEqual(stateOf(dump, { A: "1" }).change, { cwd: "/tmp", env: { A: "2" } });
 * assert.equal(stateOf("its file is sparse", {}).note, "session state refused: its file is sparse");
 * ```
 */
export function stateOf(read: Uint8Array | string, given: Readonly<Record<string, string>>): TakenState {
  if (typeof read === "string") return { change: undefined, note: `session state refused: ${read}` };
  return { change: parseState(read, given) };
}

/** The file's bytes, or a string saying why they are refused. */
async function readBounded(fd: number, maxBytes: number): Promise<Uint8Array | string> {
  const before = fstatSync(fd);
  // Unlinked: the command removed the file, or put another in its place, which the host does not read.
  if (before.nlink === 0) return "its file was removed or replaced by the command";
  if (before.size > maxBytes) return `it is larger than maxSessionStateBytes (${before.size} > ${maxBytes} bytes)`;
  if (before.blocks * 512 + SPARSE_SLACK < before.size) return "its file is sparse";
  // One byte more than the size: a file that grew since the stat shows it here, and is refused.
  const bytes = new Uint8Array(before.size + 1);
  let length = 0;
  while (length < bytes.length) {
    const count = await readAt(fd, bytes, length);
    if (count === 0) break;
    length += count;
  }
  if (length !== before.size || fstatSync(fd).size !== before.size) return "its file was still being written";
  return bytes.subarray(0, length);
}

/** One read into `bytes` from `offset` (the same offset in the file), on the runtime's thread pool. */
function readAt(fd: number, bytes: Uint8Array, offset: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, bytes, offset, bytes.length - offset, offset, (error, count) => error ? reject(error) : resolve(count));
  });
}

const encoder = new TextEncoder();
const NUL = 0;

/**
 * The change a dump describes against `given`, or undefined when the dump
 * is not whole. The dump is `pwd`'s line and a NUL, then either the
 * environment's `NAME=value` entries, each ending with a NUL (a `cat` of
 * `/proc/self/environ`), or the record `dsh-export-p` and bash's
 * `export -p` listing (`export_list.ts`), each ending with a NUL; then the
 * end mark and its NUL. A listing that is not one bash prints is no dump.
 */
export function parseState(
  dump: string | Uint8Array,
  given: Readonly<Record<string, string>>,
): StateChange | undefined {
  const entries = splitAtNul(typeof dump === "string" ? encoder.encode(dump) : dump);
  // `pwd`'s line, the environment's entries, the end mark, and the empty entry after its NUL.
  if (entries.length < 3 || entries.at(-1)?.length !== 0 || text(entries.at(-2)!) !== STATE_END) return undefined;
  const line = text(entries[0]);
  if (!line.endsWith("\n") || !line.startsWith("/")) return undefined;
  const cwd = line.slice(0, -1);
  const now = new Map<string, string>();
  const listingAt = entries.findIndex(isListingMark);
  if (listingAt !== -1) {
    // bash's listing is the one record between its mark and the end mark: anything around it is no dump of bash's.
    const listed = listingAt === 1 && entries.length === 5 ? exportedVariables(entries[2]) : undefined;
    if (listed === undefined) return undefined;
    for (const [name, value] of listed) if (carriesOver(name)) now.set(name, value);
  } else {
    for (const entry of entries.slice(1, -2).map(text)) {
      const equals = entry.indexOf("=");
      // An entry with no name, or no "=", is no variable a shell could have exported.
      if (equals <= 0) continue;
      const name = entry.slice(0, equals);
      // Only a name a shell can export: a dump a command spoiled (bytes of its own written into fd 9 around the
      // trap's) must not hand on a name no later command could be started with (an engine refuses it, every time).
      if (carriesOver(name) && SHELL_NAME.test(name)) now.set(name, entry.slice(equals + 1));
    }
  }
  const env: EnvPatch = {};
  for (const [name, value] of now) {
    if (given[name] !== value) env[name] = value;
  }
  for (const name of Object.keys(given)) {
    // A name no shell variable can have (`A-B`) is passed on by the shell as it came, never unset by a command;
    // bash's own listing (`script.ts`) holds only the variables it has, so its absence there says nothing.
    if (carriesOver(name) && !now.has(name) && SHELL_NAME.test(name)) env[name] = undefined;
  }
  return { cwd, env };
}

/** `bytes` cut at each NUL (the pieces, without their NULs; the last is what follows the last NUL). */
function splitAtNul(bytes: Uint8Array): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (let at = bytes.indexOf(NUL); at !== -1; at = bytes.indexOf(NUL, start)) {
    pieces.push(bytes.subarray(start, at));
    start = at + 1;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/** Not streaming: one decoder serves every call. */
const decoder = new TextDecoder();

/** UTF-8 text, a byte that is not UTF-8 read as U+FFFD. */
function text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

const LISTING_MARK = encoder.encode(EXPORT_LISTING);

/** Whether `entry` is the record bash writes before its listing (compared as bytes: the listing is long). */
function isListingMark(entry: Uint8Array): boolean {
  return entry.length === LISTING_MARK.length && entry.every((byte, index) => byte === LISTING_MARK[index]);
}
