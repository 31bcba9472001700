/**
 * Spill files: the complete stream of a command whose output passed its
 * in-memory budget, written to a private file the caller can read later.
 *
 * @module
 */

import process from "node:process";
import {
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmdirSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShellSpawnError } from "../errors.ts";
import { randomHex } from "../random_hex.ts";

/** This process's user id, or undefined where the platform has none. */
function currentUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/** What {@linkcode spillDirProblem} says of a path that does not exist (yet). */
export const SPILL_DIR_MISSING = "does not exist";

/**
 * Why `dir` must not receive spill files, or undefined when it is a fit
 * place for them. The spill files hold the complete output of commands, so
 * the directory must be the caller's own and private to writes:
 *
 * - not a symbolic link (it is never followed: the link could send every
 *   command's output somewhere another user reads);
 * - a directory;
 * - owned by this process's user;
 * - not writable by group or others (`mode & 0o022`): another user could
 *   rename or delete a spill file and put their own in its place;
 * - writable and searchable by this process.
 *
 * A missing directory is reported as missing; callers that create it
 * decide what that means. Uses `lstat`, so the path itself is never
 * followed.
 *
 * @param dir An absolute path.
 * @returns The reason, worded to follow the path (`"is a symbolic link …"`).
 */
export function spillDirProblem(dir: string): string | undefined {
  let stat: Stats;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT") return SPILL_DIR_MISSING;
    if (code === "ENOTDIR") return "is inside a path that is not a directory";
    return `cannot be examined (${error instanceof Error ? error.message : String(error)})`;
  }
  if (stat.isSymbolicLink()) return "is a symbolic link, which is not followed";
  if (!stat.isDirectory()) return "is not a directory";
  const uid = currentUid();
  if (uid !== undefined && stat.uid !== uid) {
    return `is owned by uid ${stat.uid}, not by this process's user (uid ${uid})`;
  }
  const mode = stat.mode & 0o7777;
  if ((mode & 0o022) !== 0) {
    const who = [mode & 0o020 ? "group" : "", mode & 0o002 ? "others" : ""].filter((w) => w !== "").join(" and ");
    const octal = mode.toString(8).padStart(4, "0");
    return `is writable by ${who} (mode ${octal}); use a directory that only its owner can write (chmod 700)`;
  }
  // The directory is ours: its owner bits say whether we may add files to
  // it (root may anyway). Deno's node:fs `accessSync` judges by mode bits
  // even for root, so the bits are read here rather than asked of access().
  if (uid !== undefined && uid !== 0 && (mode & 0o300) !== 0o300) return "is not writable by this process";
  return undefined;
}

/**
 * Throws a `ShellSpawnError` naming the path when `dir` is no place for
 * spill files (see {@linkcode spillDirProblem}): asked as a command is
 * spawned, and its output's marker says why.
 */
function checkUsable(dir: string): void {
  const problem = spillDirProblem(dir);
  if (problem !== undefined) throw new ShellSpawnError(`spillDir ${problem}: ${dir}`, dir);
}

/**
 * Where spill files go: a directory, resolved lazily at the first spill and
 * checked again (with `lstat`) before every spill file is created, since
 * the path could be swapped for a symbolic link or another user's
 * directory after the shell was created. A directory that has disappeared
 * is created again.
 */
export class SpillDirectory {
  #configured: string | undefined;

  /** The directory as it is now (the default one once made), or undefined before the first spill. */
  get current(): string | undefined {
    return this.#resolved ?? this.#configured;
  }
  #resolved: string | undefined;
  /** The names of the subdirectories {@linkcode subdirectory} made, removed with the directory when empty. */
  readonly #subdirectories = new Set<string>();

  /**
   * @param configured The caller's `spillDir`, or `undefined` for a private
   *   0700 directory created under the OS temp dir at the first spill.
   */
  constructor(configured: string | undefined) {
    this.#configured = configured;
  }

  /**
   * The directory path, creating it on first use. Throws when the
   * directory is unusable; the message names `spillDir`, the path and why.
   */
  path(): string {
    // Created at the first spill, and again when it has disappeared since (a
    // command removed it, or a temp cleaner did), with the same checks.
    if (this.#resolved === undefined || spillDirProblem(this.#resolved) === SPILL_DIR_MISSING) {
      this.#resolved = this.#create();
    }
    checkUsable(this.#resolved);
    return this.#resolved;
  }

  /**
   * The subdirectory `name` of the directory, made (0700) when missing and
   * checked like the directory itself. A sandboxed shell keeps each owner's
   * spill files in one, so that only that owner's commands are shown them.
   * Throws like {@linkcode path}.
   */
  subdirectory(name: string): string {
    const dir = join(this.path(), name);
    if (spillDirProblem(dir) === SPILL_DIR_MISSING) {
      // Exclusive: a path that appeared in between is checked below, never taken over.
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (error) {
        if ((error as { code?: unknown }).code !== "EEXIST") {
          throw new ShellSpawnError(error instanceof Error ? error.message : String(error), dir, { cause: error });
        }
      }
    }
    checkUsable(dir);
    this.#subdirectories.add(name);
    return dir;
  }

  /**
   * Removes the directory this shell made under the OS temp dir when it
   * holds nothing (a sandboxed shell makes it before the first spill), and
   * the empty subdirectories it made in any. A caller's `spillDir`, and a
   * directory holding spill files, stay.
   */
  removeIfEmpty(): void {
    const dir = this.#resolved;
    if (dir === undefined) return;
    for (const name of this.#subdirectories) {
      try {
        rmdirSync(join(dir, name));
      } catch {
        // Holds spill files (the caller's to read), or gone already.
      }
    }
    if (this.#configured !== undefined) return;
    try {
      if (readdirSync(dir).length === 0) rmdirSync(dir);
    } catch {
      // Gone already.
    }
  }

  #create(): string {
    if (this.#configured === undefined) {
      // mkdtemp creates the directory with mode 0700 and an unpredictable
      // name; a new one each time, so a name once seen cannot be planted.
      return mkdtempSync(join(tmpdir(), "dsh-shell-"));
    }
    // Does nothing when the path exists (also as a symlink to a
    // directory): the check after it sees the path itself, not its target.
    mkdirSync(this.#configured, { recursive: true, mode: 0o700 });
    return this.#configured;
  }
}

function randomName(label: string): string {
  return `${label}-${randomHex(12)}.log`;
}

/** One open spill file, written synchronously so chunk memory can be reused at once. */
export class SpillFile {
  /** The file's absolute path. */
  readonly path: string;
  #fd: number | undefined;

  /**
   * Creates the file exclusively (never following or reusing an existing
   * path) with mode 0600.
   */
  constructor(directory: string, label: string) {
    this.path = join(directory, randomName(label));
    this.#fd = openSync(this.path, "wx", 0o600);
  }

  /** Appends `bytes` completely. */
  write(bytes: Uint8Array): void {
    if (this.#fd === undefined) return;
    let offset = 0;
    while (offset < bytes.length) {
      offset += writeSync(this.#fd, bytes, offset, bytes.length - offset);
    }
  }

  /** Closes the file and keeps it. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Closes the file and deletes it. */
  discard(): void {
    this.close();
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone: nothing to discard.
    }
  }
}
