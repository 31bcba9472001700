/**
 * One step of a file operation: the fixed script of `script.ts` run as a
 * command of the shell, as the owner, through the shell's own `resolve()`
 * and `run()` (so the sandbox, the engine, the timeout, the events and
 * `close()` apply as to any command), and its exit status turned into a
 * {@linkcode ShellFileError} naming the path.
 *
 * @module
 */

import { ShellFileError } from "../errors.ts";
import type { Shell } from "../types.ts";
import { FILE_SCRIPT, FILE_STATUS } from "./script.ts";

/** How one script run ended: its stdout (bounded by the caller) when it succeeded. */
export interface StepOutput {
  /** What the script printed: the data asked for. */
  readonly stdout: string;
}

/** What a step needs: the shell and the owner its commands run as. */
export interface StepContext {
  readonly shell: Shell;
  readonly owner: string | null;
}

/** The words for each exit status of the script, given the path and what was attempted. */
function failure(status: number | null, path: string, doing: string, stderr: string): ShellFileError {
  switch (status) {
    case FILE_STATUS.missing:
      return new ShellFileError("ENOENT", path, `cannot ${doing}: no such file or directory`);
    case FILE_STATUS.notDirectory:
      return new ShellFileError("ENOENT", path, `cannot ${doing}: a parent of the path is not a directory`);
    case FILE_STATUS.denied:
      return new ShellFileError("EACCES", path, `cannot ${doing}: permission denied (or a read-only file system)`);
    case FILE_STATUS.directory:
      return new ShellFileError("EISDIR", path, `cannot ${doing}: it is a directory, not a file`);
    case FILE_STATUS.special:
      return new ShellFileError(
        "EACCES",
        path,
        `cannot ${doing}: not a regular file (a device, a FIFO or a socket, or a path the sandbox hides)`,
      );
    case FILE_STATUS.tooLarge:
      return new ShellFileError("EFBIG", path, `cannot ${doing}: the file is too large to read whole`);
    case FILE_STATUS.binary:
      return new ShellFileError("EBINARY", path, `cannot ${doing}: a binary file (NUL bytes in its first 8 KiB)`);
    default: {
      // Not one of the script's answers: the shell itself failed (killed, out of memory, no `sh`). Say what it said.
      const said = stderr.trim().split("\n").slice(-1)[0] ?? "";
      const how = status === null ? "was ended by a signal" : `exited with ${status}`;
      return new ShellFileError("EACCES", path, `cannot ${doing}: the file command ${how}${said ? ` (${said})` : ""}`);
    }
  }
}

/**
 * Runs the script's `args` (the operation first, then the absolute path)
 * with `stdin`, keeping at most `stdoutBytes` of its output in memory.
 * Throws {@linkcode ShellFileError} when the script refuses, and what
 * `run()` throws (a closed shell, the sandbox or the engine failing).
 */
export async function runStep(
  context: StepContext,
  args: readonly [string, string, ...string[]],
  doing: string,
  options: { stdin?: string; stdoutBytes?: number } = {},
): Promise<StepOutput> {
  const spec = context.shell.resolve({
    command: "sh",
    args: ["-c", FILE_SCRIPT, "dsh-files", ...args],
    owner: context.owner,
    stdin: options.stdin ?? "",
    stdoutMaxBytes: options.stdoutBytes ?? 4096,
  });
  const result = await context.shell.run(spec);
  const path = args[1];
  if (result.timedOut) throw new ShellFileError("EACCES", path, `cannot ${doing}: timed out`);
  if (result.aborted) throw new ShellFileError("EACCES", path, `cannot ${doing}: aborted`);
  if (result.exitCode !== 0) throw failure(result.exitCode, path, doing, result.stderr.text);
  // The bound was chosen to hold the answer; more would mean the file changed under us. Refuse rather than guess.
  if (result.stdout.truncated) throw new ShellFileError("EFBIG", path, `cannot ${doing}: the file grew while read`);
  return { stdout: result.stdout.text };
}
