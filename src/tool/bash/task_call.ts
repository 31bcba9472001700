/**
 * The start of a `bash_output` or `kill_shell` call: check the input and
 * the context, then find the task through the shell's owner check. An
 * unknown id and another owner's task get one and the same answer, so a
 * model cannot learn that another session's task exists.
 *
 * @module
 */

import { TaskAccessError } from "../../seam/errors.ts";
import type { Shell, ShellTask } from "../../seam/types.ts";
import { checkContext } from "../shared/context.ts";
import { ToolInputError } from "../shared/errors.ts";
import { checkInput, type InputRules } from "../shared/check_input.ts";
import type { TaskIdInput } from "./task_types.ts";
import type { BashToolContext, ToolOutcome } from "../shared/types.ts";

/** A call that found its task, or the outcome that ends it at once. */
export type TaskCall = { task: ShellTask; signal?: AbortSignal; keepControl: boolean } | { outcome: ToolOutcome };

/**
 * The answer for an id this owner cannot reach. It depends on the id alone:
 * whether the task is unknown, forgotten or another owner's is not said.
 */
function noSuchTask(id: string): string {
  return `[error] no background task ${JSON.stringify(id)} is available to you: ` +
    "use the id from a `started background task <id>` result";
}

/**
 * Checks `input` by `rules` and `context`, then looks the task up as the
 * context's owner. A refused input or an id the owner cannot reach ends the
 * call with an error outcome. Throws (harness mistakes): `TypeError` for a
 * context without a valid owner or signal, and the signal's reason when it
 * was already aborted.
 */
export function beginTaskCall(
  shell: Shell,
  rules: InputRules<TaskIdInput>,
  input: unknown,
  context: BashToolContext,
): TaskCall {
  let taskId: string;
  try {
    taskId = checkInput(rules, input).task_id;
  } catch (error) {
    if (error instanceof ToolInputError) return { outcome: { text: error.message, isError: true } };
    throw error;
  }
  const { owner, signal, keepControlSequences } = checkContext(context, rules.tool);
  signal?.throwIfAborted();
  try {
    return { task: shell.task(taskId, owner), signal, keepControl: keepControlSequences === true };
  } catch (error) {
    if (error instanceof TaskAccessError) return { outcome: { text: noSuchTask(taskId), isError: true } };
    throw error;
  }
}
