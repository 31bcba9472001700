/**
 * `shell.files({ owner })`: read, write, edit and apply a patch where the
 * shell's commands run. Each operation is one or more runs of the fixed
 * script (`operation.ts`); the text work (lines, replacements, the patch)
 * is done here, on the host, from what the script read, so a patch is
 * computed whole before anything is written.
 *
 * @module
 */

import { ShellFileError, ShellSpecError } from "../errors.ts";
import type { ShellFileEvent } from "../events/types.ts";
import { randomHex } from "../random_hex.ts";
import type { Shell } from "../types.ts";
import { runStep, type StepContext } from "./operation.ts";
import { applyChunks, parsePatch } from "./patch.ts";
import { parentOf, resolveFilePath } from "./paths.ts";
import type {
  ShellFileEdit,
  ShellFilePatchChange,
  ShellFileRead,
  ShellFileReadOptions,
  ShellFiles,
  ShellFileWritten,
} from "./types.ts";

/** The most a read returns: Claude Code's Read bound. */
export const READ_MAX_BYTES = 256 * 1024;
/** The lines a read returns by default: Claude Code's Read default. */
export const READ_DEFAULT_LINES = 2000;
/** The largest file an edit or a patch reads whole. */
export const EDIT_MAX_BYTES = 16 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** What `createShellFiles` needs of its shell: itself, and where file events go. */
export interface FilesHost {
  readonly shell: Shell;
  /** Hands a file event to the shell's listeners. */
  emit(event: ShellFileEvent): void;
}

/** The number of lines in `text`: its newlines, and one more for a last line without one. */
function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

/** A positive integer option, or undefined; a `ShellSpecError` naming it otherwise. */
function positive(field: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new ShellSpecError(field, `must be a positive integer (got ${JSON.stringify(value) ?? String(value)})`);
  }
  return value;
}

function text(field: string, value: unknown): string {
  if (typeof value !== "string") throw new ShellSpecError(field, `must be a string (got ${typeof value})`);
  return value;
}

/** The files of `host.shell` as `owner`'s commands see them. */
export function createShellFiles(host: FilesHost, owner: string | null): ShellFiles {
  return new SeamFiles(host, owner);
}

class SeamFiles implements ShellFiles {
  readonly owner: string | null;
  readonly #host: FilesHost;
  readonly #step: StepContext;
  #workdir: string | undefined;

  constructor(host: FilesHost, owner: string | null) {
    this.#host = host;
    this.owner = owner;
    this.#step = { shell: host.shell, owner };
  }

  /** The absolute path of `path` (the shell's workdir, as its `resolve()` fills it, for a relative one). */
  #resolve(path: unknown, field = "path"): string {
    this.#workdir ??= this.#host.shell.resolve({ command: "true", owner: this.owner }).workdir;
    return resolveFilePath(path, this.#workdir, field);
  }

  /** Runs `work`, reporting it as a file event whatever its end; `bytes` of the result for the event. */
  async #reported<T>(
    operation: ShellFileEvent["operation"],
    path: string,
    work: () => Promise<T>,
    bytes: (value: T) => number,
  ): Promise<T> {
    try {
      const value = await work();
      this.#emit({ operation, path, bytes: bytes(value), outcome: "ok" });
      return value;
    } catch (error) {
      const failed = error instanceof ShellFileError ? error.path : path;
      const code = (error as { code?: unknown }).code;
      this.#emit({ operation, path: failed, bytes: 0, outcome: typeof code === "string" ? code : "error" });
      throw error;
    }
  }

  #emit(fields: Omit<ShellFileEvent, "type" | "owner" | "time">): void {
    this.#host.emit({ type: "file", owner: this.owner, ...fields, time: Date.now() });
  }

  read(path: string, options?: ShellFileReadOptions): Promise<ShellFileRead> {
    const absolute = this.#resolve(path);
    const offset = positive("offset", options?.offset) ?? 1;
    const limit = positive("limit", options?.limit) ?? READ_DEFAULT_LINES;
    return this.#reported("read", absolute, () => this.#read(absolute, offset, limit), (read) => byteLength(read.text));
  }

  async #read(path: string, offset: number, limit: number): Promise<ShellFileRead> {
    // One line more than asked and one byte more than kept: what tells that the file goes on.
    const { stdout } = await runStep(
      this.#step,
      ["read", path, String(offset), String(Math.min(limit + 1, 2 ** 31 - 1)), String(READ_MAX_BYTES + 1)],
      "read",
      { stdoutBytes: READ_MAX_BYTES + 64 },
    );
    const newline = stdout.indexOf("\n");
    const size = Number(stdout.slice(0, newline));
    let data = stdout.slice(newline + 1);
    let note: string | undefined;
    let truncated = false;
    /** The bound fell inside the first line: it is shown cut, and no offset reaches the rest of it. */
    let longLine = false;
    const bytes = encoder.encode(data);
    if (bytes.length > READ_MAX_BYTES) {
      const kept = decoder.decode(bytes.subarray(0, READ_MAX_BYTES));
      // Whole lines when there is at least one; a single line longer than the bound is cut where the bound falls.
      const lastNewline = kept.lastIndexOf("\n");
      longLine = lastNewline < 0;
      data = longLine ? kept.replace(/\uFFFD$/, "") : kept.slice(0, lastNewline + 1);
      truncated = true;
    }
    let lineCount = countLines(data);
    if (!truncated && lineCount > limit) {
      data = data.split("\n").slice(0, limit).join("\n") + "\n";
      lineCount = limit;
      truncated = true;
    }
    if (data.includes("\0")) throw new ShellFileError("EBINARY", path, "cannot read: a binary file (NUL bytes)");
    if (truncated) {
      const next = offset + lineCount;
      const bound = `${READ_MAX_BYTES / 1024} KiB`;
      if (longLine) {
        note =
          `cut at ${bound} inside line ${offset}, which is longer than that; the file is ${size} bytes: read the ` +
          "rest of the line with a command";
      } else if (bytes.length > READ_MAX_BYTES) {
        note = `cut at ${bound}; the file is ${size} bytes: read on with offset ${next}`;
      } else note = `showing lines ${offset}-${next - 1}; the file goes on: read on with offset ${next}`;
    }
    const read: ShellFileRead = { path, text: data, startLine: offset, lineCount, size, truncated };
    if (note !== undefined) read.note = note;
    if (data === "" && offset > 1) {
      const total = await this.#countLines(path);
      if (offset > total) {
        read.totalLines = total;
        read.note = `offset ${offset} is past the end: the file has ${total} line${total === 1 ? "" : "s"}`;
      }
    }
    return read;
  }

  async #countLines(path: string): Promise<number> {
    const { stdout } = await runStep(this.#step, ["count", path], "read");
    const [size, newlines] = stdout.trim().split(/\s+/).map(Number);
    // Counted as an editor (and Claude Code's Read) counts them: the newlines and one more, the line after the last
    // newline, empty when the file ends with one.
    return size === 0 ? 0 : newlines + 1;
  }

  /** The whole of a text file, for an edit or a patch: refused past `EDIT_MAX_BYTES` or when not UTF-8. */
  async #whole(path: string, doing: string): Promise<string> {
    const { stdout } = await runStep(this.#step, ["cat", path, String(EDIT_MAX_BYTES)], doing, {
      stdoutBytes: EDIT_MAX_BYTES + 64,
    });
    const newline = stdout.indexOf("\n");
    const size = Number(stdout.slice(0, newline));
    const content = stdout.slice(newline + 1);
    // The script refused a larger file before reading it; one that grew since is cut at the bound: refuse it too.
    if (size > EDIT_MAX_BYTES || byteLength(content) > size) {
      throw new ShellFileError("EFBIG", path, `cannot ${doing}: the file is too large to read whole`);
    }
    if (content.includes("\0")) throw new ShellFileError("EBINARY", path, `cannot ${doing}: a binary file (NUL bytes)`);
    // The output was decoded as UTF-8; a replacement character means bytes that were not, and writing the text back
    // would change them. (A file that holds U+FFFD itself is refused too: rare, and the safe side.)
    if (content.includes("\uFFFD")) {
      throw new ShellFileError("EBINARY", path, `cannot ${doing}: not valid UTF-8 text; change it with a command`);
    }
    return content;
  }

  /** `#whole`, or undefined when the path does not exist. */
  async #wholeIfAny(path: string, doing: string): Promise<string | undefined> {
    try {
      return await this.#whole(path, doing);
    } catch (error) {
      if (error instanceof ShellFileError && error.code === "ENOENT" && error.message.includes("no such file")) {
        return undefined;
      }
      throw error;
    }
  }

  /** Writes atomically; `parents`: make missing parent directories first (a patch's add and move, as Codex does). */
  async #write(path: string, content: string, doing: string, parents = false): Promise<boolean> {
    const mode = parents ? "parents" : "exact";
    const { stdout } = await runStep(this.#step, ["write", path, parentOf(path), randomHex(8), mode], doing, {
      stdin: content,
    });
    return stdout.trim() === "created";
  }

  async #delete(path: string, doing: string): Promise<void> {
    await runStep(this.#step, ["delete", path], doing);
  }

  write(path: string, content: string): Promise<ShellFileWritten> {
    const absolute = this.#resolve(path);
    const checked = text("content", content);
    return this.#reported("write", absolute, async () => {
      const created = await this.#write(absolute, checked, "write");
      return { path: absolute, bytes: byteLength(checked), created };
    }, (written) => written.bytes);
  }

  edit(path: string, edit: ShellFileEdit): Promise<ShellFileWritten> {
    const absolute = this.#resolve(path);
    if (typeof edit !== "object" || edit === null) throw new ShellSpecError("edit", "must be an object");
    const oldString = text("oldString", edit.oldString);
    const newString = text("newString", edit.newString);
    const replaceAll = edit.replaceAll;
    if (replaceAll !== undefined && typeof replaceAll !== "boolean") {
      throw new ShellSpecError("replaceAll", `must be a boolean (got ${typeof replaceAll})`);
    }
    if (oldString === "") throw new ShellSpecError("oldString", "must not be empty (to create a file, use write)");
    if (oldString === newString) throw new ShellSpecError("newString", "must differ from oldString: nothing to change");
    return this.#reported("edit", absolute, async () => {
      const before = await this.#whole(absolute, "edit");
      const found = before.split(oldString).length - 1;
      if (found === 0) throw new ShellFileError("EDITMATCH", absolute, "oldString was not found in the file");
      if (found > 1 && replaceAll !== true) {
        throw new ShellFileError(
          "EDITMATCH",
          absolute,
          `oldString was found ${found} times; give more surrounding text to make it unique, or set replaceAll`,
        );
      }
      const at = before.indexOf(oldString);
      const after = replaceAll === true
        ? before.split(oldString).join(newString)
        : before.slice(0, at) + newString + before.slice(at + oldString.length);
      await this.#write(absolute, after, "edit");
      return { path: absolute, bytes: byteLength(after), replacements: replaceAll === true ? found : 1 };
    }, (written) => written.bytes);
  }

  async applyPatch(patch: string): Promise<ShellFilePatchChange[]> {
    const source = text("patch", patch);
    const workdir = this.#resolve(".");
    let plan: PlannedChange[];
    try {
      plan = await this.#plan(source);
    } catch (error) {
      const path = error instanceof ShellFileError ? error.path : workdir;
      const code = (error as { code?: unknown }).code;
      this.#emit({ operation: "patch", path, bytes: 0, outcome: typeof code === "string" ? code : "error" });
      throw error;
    }
    const done: PlannedChange[] = [];
    try {
      for (const change of plan) {
        await this.#commit(change);
        done.push(change);
      }
    } catch (error) {
      const failedAt = plan[done.length];
      const unrestored = await this.#rollBack(done, failedAt);
      const path = error instanceof ShellFileError ? error.path : failedAt.path;
      const code = error instanceof ShellFileError ? error.code : "PATCH";
      const rest = unrestored.length === 0
        ? "no file was changed (the files written before were put back)"
        : `these files could not be put back: ${unrestored.map((p) => JSON.stringify(p)).join(", ")}`;
      this.#emit({ operation: "patch", path, bytes: 0, outcome: code });
      throw new ShellFileError(code, path, `${error instanceof Error ? error.message : String(error)}; ${rest}`);
    }
    for (const change of plan) {
      const fields = { operation: "patch" as const, action: change.action, path: change.path };
      this.#emit({
        ...fields,
        ...(change.movedTo !== undefined ? { movedTo: change.movedTo } : {}),
        bytes: change.after === undefined ? 0 : byteLength(change.after),
        outcome: "ok",
      });
    }
    return plan.map((change) => {
      const reported: ShellFilePatchChange = { action: change.action, path: change.path };
      if (change.movedTo !== undefined) reported.movedTo = change.movedTo;
      return reported;
    });
  }

  /** Every file the patch touches, read, and its new content computed: nothing is written yet. */
  async #plan(patch: string): Promise<PlannedChange[]> {
    // A patch that cannot be parsed throws a ShellFileError ("PATCH") of the patch itself.
    const hunks = parsePatch(patch);
    if (hunks.length === 0) throw new ShellFileError("PATCH", "patch", "No files were modified.");
    const touched = new Set<string>();
    const claim = (path: string): void => {
      if (touched.has(path)) {
        // Codex's words (0.169.0 refuses it too): one operation per path, so that each is undone alone.
        throw new ShellFileError("PATCH", path, `invalid patch: multiple operations target ${path}`);
      }
      touched.add(path);
    };
    const plan: PlannedChange[] = [];
    for (const hunk of hunks) {
      const path = this.#patchPath(hunk.path);
      claim(path);
      if (hunk.kind === "add") {
        plan.push({ action: "add", path, before: await this.#wholeIfAny(path, "add"), after: hunk.contents });
      } else if (hunk.kind === "delete") {
        plan.push({ action: "delete", path, before: await this.#whole(path, "delete"), after: undefined });
      } else {
        const before = await this.#whole(path, "update");
        // A patch that does not fit throws a ShellFileError ("PATCH") of this path.
        const after = applyChunks(path, before, hunk.chunks);
        if (hunk.moveTo === undefined) {
          plan.push({ action: "update", path, before, after });
        } else {
          const movedTo = this.#patchPath(hunk.moveTo);
          claim(movedTo);
          const target = await this.#wholeIfAny(movedTo, "move");
          plan.push({ action: "move", path, before, after, movedTo, targetBefore: target });
        }
      }
    }
    return plan;
  }

  #patchPath(path: string): string {
    try {
      return this.#resolve(path);
    } catch (error) {
      if (error instanceof ShellSpecError) throw new ShellFileError("PATCH", path, error.message);
      throw error;
    }
  }

  async #commit(change: PlannedChange): Promise<void> {
    if (change.action === "delete") return await this.#delete(change.path, "delete");
    if (change.action === "move") {
      await this.#write(change.movedTo ?? change.path, change.after ?? "", "move", true);
      return await this.#delete(change.path, "move");
    }
    await this.#write(change.path, change.after ?? "", change.action, change.action === "add");
  }

  /** Puts back what `done` changed, last first; the paths that could not be. */
  async #rollBack(done: readonly PlannedChange[], failed: PlannedChange | undefined): Promise<string[]> {
    const unrestored: string[] = [];
    const restore = async (path: string, before: string | undefined): Promise<void> => {
      try {
        if (before === undefined) await this.#delete(path, "roll back").catch(ignoreMissing);
        else await this.#write(path, before, "roll back");
      } catch {
        unrestored.push(path);
      }
    };
    // A move that failed after writing its destination: the destination is put back too.
    if (failed?.action === "move") await restore(failed.movedTo ?? failed.path, failed.targetBefore);
    for (const change of [...done].reverse()) {
      if (change.action === "move") {
        await restore(change.movedTo ?? change.path, change.targetBefore);
        await restore(change.path, change.before);
      } else await restore(change.path, change.before);
    }
    return unrestored;
  }
}

function ignoreMissing(error: unknown): void {
  if (error instanceof ShellFileError && error.code === "ENOENT") return;
  throw error;
}

/** One file of a patch, planned: its content before (undefined: it did not exist) and after (undefined: gone). */
interface PlannedChange {
  readonly action: ShellFilePatchChange["action"];
  readonly path: string;
  readonly movedTo?: string;
  readonly before: string | undefined;
  readonly after: string | undefined;
  /** For a move: the destination's content before, if it existed. */
  readonly targetBefore?: string;
}
