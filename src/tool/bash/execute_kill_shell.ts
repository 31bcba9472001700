/**
 * One `kill_shell` call: find the task as its owner, start its termination
 * (the shell's: SIGTERM to the whole group, SIGKILL `graceMs` later), wait
 * for its end, and say how it ended.
 *
 * @module
 */

import type { Shell, ShellTask } from "../../seam/types.ts";
import { KILL_SHELL_RULES } from "./kill_shell_tool.ts";
import { beginTaskCall } from "./task_call.ts";
import { statusLine } from "./status_line.ts";
import type { BashToolContext, ToolOutcome } from "../shared/types.ts";

/** `task.done`, or a rejection with the signal's reason when it aborts first. */
function endOf(task: ShellTask, signal: AbortSignal | undefined): Promise<unknown> {
  if (signal === undefined) return task.done;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    task.done.then((result) => {
      signal.removeEventListener("abort", onAbort);
      resolve(result);
    });
  });
}

/** The text for a task that has ended: what happened, its status, and whether output is left to read. */
async function ended(task: ShellTask, headline: string): Promise<string> {
  const lines = [headline, statusLine(task)];
  // The task has ended, so the wait answers at once; it reads nothing.
  if (await task.waitForOutput() === "output") lines.push("Its unread output can still be read with bash_output.");
  return lines.join("\n");
}

/**
 * Runs one `kill_shell` call: stops background task `input.task_id`, as
 * its owner may see it, with its whole process group (`task.kill()`:
 * SIGTERM, then SIGKILL after the shell's `graceMs`), and resolves once
 * the task has ended, that is once its leader has: at most about `graceMs`
 * after the kill, since the SIGKILL ends even a leader that ignores
 * SIGTERM. Another member of the group that ignores SIGTERM may outlive
 * the answer by up to `graceMs`, until that SIGKILL. The text is
 *
 * - `killed background task <id>` and the status line
 *   (`[status: killed; signal: SIGTERM]`), or
 * - `background task <id> had already ended; nothing was killed` and the
 *   status line, for a task that had ended (a second kill, a task that
 *   finished or never started, one that ended by itself meanwhile), or
 * - `background task <id> had already ended; what it left running was
 *   killed` and the status line, for a task that had ended but left
 *   processes in its session (`sleep 300 &`): those are terminated, and the
 *   answer does not wait for them;
 *
 * then `Its unread output can still be read with bash_output.` when there
 * is some; the output is not read. `isError` is false for both: either way
 * the task is no longer running. It is true for an input the tool refuses
 * (the `ToolInputError`'s message) and for a task id this owner cannot
 * reach: an unknown id and another owner's task get the very same text,
 * the same as `bash_output`'s.
 *
 * Rejects (harness mistakes) with `TypeError` for a context without an
 * owner and with the signal's reason when the signal was already aborted
 * (nothing is killed) or aborts while the call waits for the task's end
 * (the termination, once begun, goes on).
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeBashTool, executeKillShellTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const context = { owner: "session-7" };
 * const started = await executeBashTool(shell, { command: "sleep 60", run_in_background: true }, context);
 * const task_id = started.taskId ?? "";
 * const killed = await executeKillShellTool(shell, { task_id }, context);
 * assert.deepEqual(killed, { text: `killed background task ${task_id}\n[status: killed; signal: SIGTERM]`, isError: false });
 * const again = await executeKillShellTool(shell, { task_id }, context);
 * assert.match(again.text, /had already ended; nothing was killed\n\[status: killed; signal: SIGTERM\]$/);
 * ```
 */
export async function executeKillShellTool(
  shell: Shell,
  input: unknown,
  context: BashToolContext,
): Promise<ToolOutcome> {
  const call = beginTaskCall(shell, KILL_SHELL_RULES, input, context);
  if ("outcome" in call) return call.outcome;
  const { task, signal } = call;
  const before: string = task.status;
  // On a task that has ended, kill() ends only what its command left running in its session.
  const began = task.kill();
  await endOf(task, signal);
  let headline = `background task ${task.id} had already ended; nothing was killed`;
  if (before === "running" && task.status === "killed") headline = `killed background task ${task.id}`;
  else if (began) headline = `background task ${task.id} had already ended; what it left running was killed`;
  return { text: await ended(task, headline), isError: false };
}
