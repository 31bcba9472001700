/**
 * The file tools run: a call's input checked, the operation done through
 * `shell.files({ owner })` (so as the harness's owner, where the shell's
 * commands run), and the answer rendered as the agent's own tool renders
 * it — Claude Code's numbered lines and messages, Codex's summary of a
 * patch. A refusal (bad input, a missing file, an edit that does not match)
 * is an outcome with `isError`, for the model to read; what is not the
 * model's doing (a closed shell, a sandbox that cannot start) is thrown.
 *
 * @module
 */

import { ShellFileError, ShellSpecError } from "../../seam/errors.ts";
import type { Shell } from "../../seam/types.ts";
import { ToolInputError } from "../shared/errors.ts";
import type { BashToolContext, ToolOutcome } from "../shared/types.ts";
import { applyPatchTool, editTool, readTool, writeTool } from "./definitions.ts";

/** The lines a read returns without a `limit`: Claude Code's default, and `shell.files().read()`'s. */
const READ_DEFAULT_LINES = 2000;

/** What Codex puts before a patch it refuses before changing anything. */
const VERIFICATION_FAILED = "apply_patch verification failed: ";

/** The tools' names for the API's fields. */
const FIELDS: Readonly<Record<string, string>> = {
  path: "file_path",
  offset: "offset",
  limit: "limit",
  content: "content",
  oldString: "old_string",
  newString: "new_string",
  replaceAll: "replace_all",
  patch: "input",
};

/** `error` as the model's outcome, when it is the model's to fix; rethrown otherwise. */
function refusal(error: unknown, problem?: (error: ShellFileError) => string | undefined): ToolOutcome {
  if (error instanceof ToolInputError) return { text: error.message, isError: true };
  if (error instanceof ShellSpecError) {
    const field = FIELDS[error.field] ?? error.field;
    return { text: `${field}${error.message.slice(error.field.length)}`, isError: true };
  }
  if (error instanceof ShellFileError) return { text: problem?.(error) ?? error.message, isError: true };
  throw error;
}

/** Claude Code's numbering: the line's number, a tab, the line (a trailing `\r` dropped). */
export function numberLines(text: string, startLine: number): string {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines.map((line, index) => `${startLine + index}\t${line.endsWith("\r") ? line.slice(0, -1) : line}`)
    .join("\n");
}

/**
 * Runs Claude Code's `Read`: the lines asked for, numbered as Claude Code
 * numbers them (`1\tfirst line`), with a note when the read was cut.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeReadTool, executeWriteTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * await using shell = createLocalShell({ workdir: mkdtempSync(join(tmpdir(), "read-")) });
 * await executeWriteTool(shell, { file_path: "a.txt", content: "one\ntwo\n" }, { owner: "s1" });
 * const read = await executeReadTool(shell, { file_path: "a.txt", offset: 2 }, { owner: "s1" });
 * assert.deepEqual(read, { text: "2\ttwo\n3\t", isError: false }); // as Claude Code: the empty line after the last newline
 * ```
 */
export async function executeReadTool(shell: Shell, input: unknown, context: BashToolContext): Promise<ToolOutcome> {
  try {
    const { file_path, offset, limit } = readTool.parse(input);
    const read = await shell.files({ owner: context.owner }).read(file_path, { offset, limit });
    if (read.text === "") {
      if (read.totalLines !== undefined) {
        return {
          text:
            `<system-reminder>Warning: the file exists but is shorter than the provided offset (${read.startLine}). ` +
            `The file has ${read.totalLines} lines.</system-reminder>`,
          isError: false,
        };
      }
      if (read.size === 0) {
        return {
          text: "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
          isError: false,
        };
      }
    }
    let numbered = numberLines(read.text, read.startLine);
    // Claude Code's lines are the text split at each newline: a file that ends with one has an empty last line, shown
    // when the read reaches it (the limit not spent first).
    if (!read.truncated && read.text.endsWith("\n") && read.lineCount < (limit ?? READ_DEFAULT_LINES)) {
      numbered += `\n${read.startLine + read.lineCount}\t`;
    }
    if (read.text === "") numbered = `${read.startLine}\t`;
    // As Claude Code, no note when the read stopped at the limit the model gave: it asked for that part.
    const asked = limit !== undefined && read.lineCount === limit && read.text.length > 0 &&
      !read.note?.startsWith("cut at");
    const note = read.note === undefined || asked ? "" : `\n\n[${read.note}]`;
    return { text: numbered + note, isError: false };
  } catch (error) {
    return refusal(error, (failed) => {
      if (failed.code === "EISDIR") return `EISDIR: illegal operation on a directory, read '${failed.path}'`;
      if (failed.code === "EBINARY") return binaryFile(failed.path);
      return missingFile(shell, context, failed);
    });
  }
}

/** Claude Code's words for a binary file (it judges by the name's extension; this library by NUL bytes). */
function binaryFile(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  const kind = dot > 0 ? `a binary ${name.slice(dot)} file` : "a binary file";
  return `This tool cannot read binary files. The file appears to be ${kind}. Use a skill for this file type if one ` +
    "is available, or a shell command or script that can read the format.";
}

/** Claude Code's words for a file that does not exist (Read, Edit): it names the working directory. */
function missingFile(shell: Shell, context: BashToolContext, error: ShellFileError): string | undefined {
  if (error.code !== "ENOENT") return undefined;
  const workdir = shell.resolve({ command: "true", owner: context.owner }).workdir;
  return `File does not exist. Note: your current working directory is ${workdir}.`;
}

/**
 * Runs Claude Code's `Write`: the whole file, atomically.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeWriteTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * import { mkdtempSync, readFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * const dir = mkdtempSync(join(tmpdir(), "write-"));
 * await using shell = createLocalShell({ workdir: dir });
 * const written = await executeWriteTool(shell, { file_path: join(dir, "a.txt"), content: "hi\n" }, { owner: "s1" });
 * assert.equal(written.text, `File created successfully at: ${join(dir, "a.txt")}`);
 * assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "hi\n");
 * ```
 */
export async function executeWriteTool(shell: Shell, input: unknown, context: BashToolContext): Promise<ToolOutcome> {
  try {
    const { file_path, content } = writeTool.parse(input);
    const written = await shell.files({ owner: context.owner }).write(file_path, content);
    return {
      text: written.created === true
        ? `File created successfully at: ${written.path}`
        : `The file ${written.path} has been updated successfully.`,
      isError: false,
    };
  } catch (error) {
    return refusal(error);
  }
}

/**
 * Runs Claude Code's `Edit`, with its messages for a string not found or
 * found more than once.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeEditTool, executeWriteTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * await using shell = createLocalShell({ workdir: mkdtempSync(join(tmpdir(), "edit-")) });
 * await executeWriteTool(shell, { file_path: "a.txt", content: "x x\n" }, { owner: "s1" });
 * const twice = await executeEditTool(shell, { file_path: "a.txt", old_string: "x", new_string: "y" }, { owner: "s1" });
 * assert.equal(twice.isError, true);
 * assert.match(twice.text, /^Found 2 matches of the string to replace, but replace_all is false/);
 * ```
 */
export async function executeEditTool(shell: Shell, input: unknown, context: BashToolContext): Promise<ToolOutcome> {
  let oldString = "";
  try {
    const { file_path, old_string, new_string, replace_all } = editTool.parse(input);
    oldString = old_string;
    if (old_string === new_string) {
      return { text: "No changes to make: old_string and new_string are exactly the same.", isError: true };
    }
    const edit = { oldString: old_string, newString: new_string, replaceAll: replace_all };
    const edited = await shell.files({ owner: context.owner }).edit(file_path, edit);
    return {
      text: replace_all === true
        ? `The file ${edited.path} has been updated. All occurrences were successfully replaced.`
        : `The file ${edited.path} has been updated successfully.`,
      isError: false,
    };
  } catch (error) {
    return refusal(error, (failed) => {
      if (failed.code !== "EDITMATCH") return missingFile(shell, context, failed);
      const found = /found (\d+) times/.exec(failed.message);
      if (found === null) return `String to replace not found in file.\nString: ${oldString}`;
      return `Found ${found[1]} matches of the string to replace, but replace_all is false. To replace all ` +
        "occurrences, set replace_all to true. To replace only one occurrence, please provide more context to " +
        `uniquely identify the instance.\nString: ${oldString}`;
    });
  }
}

/**
 * Runs Codex's `apply_patch`: all or nothing; the answer lists the files as
 * Codex does (`A`dded, `M`odified, `D`eleted).
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeApplyPatchTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * await using shell = createLocalShell({ workdir: mkdtempSync(join(tmpdir(), "patch-")) });
 * const input = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch";
 * const done = await executeApplyPatchTool(shell, { input }, { owner: "s1" });
 * assert.deepEqual(done, { text: "Success. Updated the following files:\nA hello.txt\n", isError: false });
 * ```
 */
export async function executeApplyPatchTool(
  shell: Shell,
  input: unknown,
  context: BashToolContext,
): Promise<ToolOutcome> {
  try {
    const { input: patch } = applyPatchTool.parse(input);
    const files = shell.files({ owner: context.owner });
    const changes = await files.applyPatch(patch);
    const workdir = shell.resolve({ command: "true", owner: context.owner }).workdir;
    const shown = (path: string): string => path.startsWith(`${workdir}/`) ? path.slice(workdir.length + 1) : path;
    const letter = { add: "A", update: "M", move: "M", delete: "D" } as const;
    const lines = changes.map((change) => `${letter[change.action]} ${shown(change.movedTo ?? change.path)}`);
    return { text: `Success. Updated the following files:\n${lines.join("\n")}\n`, isError: false };
  } catch (error) {
    // Codex's own words (measured on 0.169.0), without the path in front that the library's message starts with.
    return refusal(error, (failed) => {
      const prefix = `${JSON.stringify(failed.path)}: `;
      const problem = failed.message.startsWith(prefix) ? failed.message.slice(prefix.length) : failed.message;
      if (failed.code === "PATCH") return `${VERIFICATION_FAILED}${problem}`;
      if (failed.code === "ENOENT" && problem.startsWith("cannot update:")) {
        return `${VERIFICATION_FAILED}Failed to read file to update ${failed.path}: No such file or directory (os error 2)`;
      }
      if (failed.code === "ENOENT" && problem.startsWith("cannot delete:")) {
        return `${VERIFICATION_FAILED}Failed to read ${failed.path}: No such file or directory (os error 2)`;
      }
      return problem;
    });
  }
}
