/**
 * A bash tool call as a harness wants it: the text for the model, whether
 * it is an error, and the task's id or the run's result.
 *
 * @module
 */

import type { Shell } from "../../seam/types.ts";
import { ToolInputError } from "../shared/errors.ts";
import { parse } from "./parse.ts";
import { runCheckedBashCall } from "./run.ts";
import type { BashToolContext } from "../shared/types.ts";
import type { BashToolInput, BashToolOutcome } from "./types.ts";

/**
 * Runs one bash tool call on `shell`, like `runBashTool`, and returns a
 * {@linkcode BashToolOutcome}: `text` is exactly what `runBashTool` would
 * return, and
 *
 * - `isError` is true for an input the tool refuses, a call the shell
 *   refuses (`[error] …`: a spawn failure, an invalid spec, too many
 *   running tasks), a timeout, an abort, a signal and a nonzero exit;
 * - `taskId` is the id of the task that `run_in_background` started; a
 *   start whose spawn failed has none (its text is `[error] …`);
 * - `result` is the foreground run's `ShellRunResult`.
 *
 * An input the tool refuses does not reject here: the outcome's text is the
 * `ToolInputError`'s message, which names the key and says what to do
 * instead, and `isError` is true; nothing was spawned. Harness problems
 * still reject, as with `runBashTool`: `ShellClosedError`, the reason of an
 * already-aborted signal, a context without an owner (`TypeError`, `ERR_SHELL_ARGUMENT`).
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeBashTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const context = { owner: "session-7" };
 * const ok = await executeBashTool(shell, { command: "echo hi" }, context);
 * assert.deepEqual([ok.text, ok.isError, ok.result?.exitCode], ["hi", false, 0]);
 * const bad = await executeBashTool(shell, { cmd: "ls" }, context);
 * assert.deepEqual([bad.text, bad.isError], ["cmd is not an input of the bash tool: the command line is `command`", true]);
 * const bg = await executeBashTool(shell, { command: "sleep 60", run_in_background: true }, context);
 * assert.equal(bg.text.split("\n")[0], `started background task ${bg.taskId}`);
 * assert.equal(shell.task(bg.taskId ?? "", "session-7").status, "running"); // close() ends it
 * ```
 */
export async function executeBashTool(
  shell: Shell,
  input: unknown,
  context: BashToolContext,
): Promise<BashToolOutcome> {
  let parsed: BashToolInput;
  try {
    parsed = parse(input);
  } catch (error) {
    if (error instanceof ToolInputError) return { text: error.message, isError: true };
    throw error;
  }
  return await runCheckedBashCall(shell, parsed, context);
}
