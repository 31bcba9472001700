/**
 * The shapes of `shell.files()`: {@linkcode ShellFiles} and what its
 * operations take and return. Re-exported by `../types.ts`, the root's
 * source.
 *
 * @module
 */

/** Options of {@linkcode ShellFiles.read}. */
export interface ShellFileReadOptions {
  /** The first line to return, from 1 (default 1). */
  offset?: number;
  /** How many lines to return at most (default 2000). */
  limit?: number;
}

/** What {@linkcode ShellFiles.read} returns: the lines asked for, as they are in the file, and where they are. */
export interface ShellFileRead {
  /** The absolute path read. */
  path: string;
  /** The lines returned, with their newlines (the last one may have none), not numbered. */
  text: string;
  /** The number of the first line of `text`, from 1. */
  startLine: number;
  /** How many lines `text` holds. */
  lineCount: number;
  /** The file's size in bytes. */
  size: number;
  /**
   * More of the file comes after `text`: the line limit or the byte bound
   * (256 KiB) cut it; `note` says which, and how to read on.
   */
  truncated: boolean;
  /** Why the read was cut, or that the offset is past the end, in one line a model can act on. */
  note?: string;
  /**
   * The file's number of lines, given when `offset` is past its end (then
   * `text` is empty): counted as an editor counts them, the newlines and one
   * more (a file that ends with a newline has an empty last line).
   */
  totalLines?: number;
}

/** What {@linkcode ShellFiles.edit} replaces. */
export interface ShellFileEdit {
  /** The exact text to replace; not empty; found exactly once unless `replaceAll`. */
  oldString: string;
  /** What replaces it; must differ from `oldString`. */
  newString: string;
  /** Replace every occurrence (default: exactly one must exist). */
  replaceAll?: boolean;
}

/** A file written by {@linkcode ShellFiles.write} or {@linkcode ShellFiles.edit}. */
export interface ShellFileWritten {
  /** The absolute path. */
  path: string;
  /** The file's size now, in bytes. */
  bytes: number;
  /** `write`: the file did not exist before. */
  created?: boolean;
  /** `edit`: how many occurrences were replaced. */
  replacements?: number;
}

/** One file a patch changed. */
export interface ShellFilePatchChange {
  /** What was done to it. */
  action: "add" | "update" | "move" | "delete";
  /** The absolute path (for a move, the source). */
  path: string;
  /** For a move, the absolute destination. */
  movedTo?: string;
}

/**
 * A shell's files, as one owner's commands see them: `shell.files({ owner
 * })`. Every operation runs where the shell's commands run, as a command of
 * its own (a fixed script in the argv form, content on stdin): under the
 * sandbox the kernel decides what can be read and written; on Docker and
 * SSH the files are the engine's. Paths are absolute or relative to the
 * shell's workdir; a `..` segment is refused. Failures are `ShellFileError`s
 * naming the path (`ShellSpecError` for a bad argument); each operation is
 * reported as a `file` event (`shell.events`), with sizes, never content.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * await using shell = createLocalShell({ workdir: mkdtempSync(join(tmpdir(), "files-")) });
 * const files = shell.files({ owner: "agent-1" });
 * await files.write("notes.txt", "one\ntwo\n");
 * await files.edit("notes.txt", { oldString: "two", newString: "2" });
 * const read = await files.read("notes.txt", { offset: 2 });
 * assert.deepEqual([read.text, read.startLine], ["2\n", 2]);
 * await files.applyPatch("*** Begin Patch\n*** Delete File: notes.txt\n*** End Patch");
 * await assert.rejects(files.read("notes.txt"), { code: "ENOENT" });
 * ```
 */
export interface ShellFiles {
  /** The owner the operations run as. */
  readonly owner: string | null;
  /**
   * Lines `offset..offset+limit-1` of a text file, at most 256 KiB of them
   * (then cut, with a note). Refuses a directory (`EISDIR`), a binary file
   * (`EBINARY`: NUL bytes in its first 8 KiB), anything but a regular file
   * (`EACCES`), a missing one (`ENOENT`).
   */
  read(path: string, options?: ShellFileReadOptions): Promise<ShellFileRead>;
  /**
   * Writes `content` (UTF-8) atomically: into a temporary file in the same
   * directory, renamed over the path (through a symbolic link, over its
   * target). The parent must exist (`ENOENT`); the mode of a file replaced
   * is kept.
   */
  write(path: string, content: string): Promise<ShellFileWritten>;
  /**
   * Replaces `oldString` with `newString` in a text file, atomically. A
   * missing `oldString`, or one found more than once without `replaceAll`,
   * is `EDITMATCH`, and says how many times it was found.
   */
  edit(path: string, edit: ShellFileEdit): Promise<ShellFileWritten>;
  /**
   * Applies a patch in Codex's `apply_patch` format, all or nothing: every
   * file is read and every new content computed first; then the files are
   * written, and if one write fails the ones before are put back. A patch
   * that cannot be parsed or applied, or touches one path twice, is `PATCH`.
   */
  applyPatch(patch: string): Promise<ShellFilePatchChange[]>;
}
