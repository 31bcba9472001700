/**
 * One `bash_output` call: find the task as its owner, read what is new
 * (the read consumes it), and render it with the task's status.
 *
 * @module
 */

import type { Shell, TaskOutput } from "../../seam/types.ts";
import { BASH_OUTPUT_RULES } from "./bash_output_tool.ts";
import { outputSections } from "./output_sections.ts";
import { beginTaskCall } from "./task_call.ts";
import { statusLine } from "./status_line.ts";
import type { BashToolContext, ToolOutcome } from "../shared/types.ts";

/**
 * One line per stream whose unread output fell out of memory before this
 * read, naming its spill file; one line saying the full output is
 * unavailable when the read was lossy and no spill file is left.
 */
function lossNotes(output: TaskOutput): string[] {
  if (!output.lossy) return [];
  const notes: string[] = [];
  const kept = "only the newest unread output is shown";
  if (output.stdoutSpillPath !== undefined) {
    notes.push(`[stdout truncated: ${kept}; full output: ${output.stdoutSpillPath}]`);
  }
  if (output.stderrSpillPath !== undefined) {
    notes.push(`[stderr truncated: ${kept}; full output: ${output.stderrSpillPath}]`);
  }
  if (notes.length === 0) notes.push(`[output truncated: ${kept}; full output unavailable]`);
  return notes;
}

/**
 * Runs one `bash_output` call: the output of background task
 * `input.task_id` since the previous read, as its owner may see it, and
 * its status. The text is, line by line:
 *
 * 1. the new stdout; `[stderr]` and the new stderr; or `(no new output)`
 *    (each stream's final newline dropped, whitespace-only counts as none,
 *    as in `bashTool.render`);
 * 2. when unread output fell out of memory before this read:
 *    `[stdout truncated: only the newest unread output is shown; full output: PATH]`
 *    (the same for stderr; `[output truncated: …; full output unavailable]`
 *    when no spill file is left);
 * 3. the status: `[status: running]`, `[status: completed; exit code: N]`,
 *    `[status: completed; signal: SIGX]`, `[status: killed; signal: SIGX]`,
 *    `[status: killed; it never started]` (spawn failure: the reason is the
 *    task's stderr, shown by the first read).
 *
 * The read consumes the output (`task.read()`): every byte is shown once,
 * whoever reads an unowned task. `isError` is false for every read, also of
 * a task that failed — the call worked, and the status line says how the
 * task ended. It is true, with nothing read, for an input the tool refuses
 * (the `ToolInputError`'s message) and for a task id this owner cannot
 * reach: an unknown id and another owner's task get the very same text.
 *
 * It does not wait: a harness that wants to block until there is news calls
 * `shell.task(id, owner).waitForOutput({ signal, timeoutMs })` first. It
 * rejects (harness mistakes) with `TypeError` for a context without an
 * owner and with the signal's reason when the signal is already aborted.
 * Reads keep working after `shell.close()`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeBashOutputTool, executeBashTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const context = { owner: "session-7" };
 * const started = await executeBashTool(shell, { command: "echo built; exit 2", run_in_background: true }, context);
 * const task_id = started.taskId ?? "";
 * await shell.task(task_id, "session-7").done;
 * const read = await executeBashOutputTool(shell, { task_id }, context);
 * assert.deepEqual(read, { text: "built\n[status: completed; exit code: 2]", isError: false });
 * const again = await executeBashOutputTool(shell, { task_id }, context);
 * assert.equal(again.text, "(no new output)\n[status: completed; exit code: 2]");
 * const stranger = await executeBashOutputTool(shell, { task_id }, { owner: "session-8" });
 * assert.equal(stranger.isError, true);
 * assert.match(stranger.text, /^\[error\] no background task/);
 * ```
 */
export function executeBashOutputTool(
  shell: Shell,
  input: unknown,
  context: BashToolContext,
): Promise<ToolOutcome> {
  // The read itself is synchronous; a promise keeps the three tools' calls alike, and turns a throw into a rejection.
  return new Promise((resolve) => resolve(readTask(shell, input, context)));
}

/** The call, synchronously: the outcome, or a throw for a harness mistake. */
function readTask(shell: Shell, input: unknown, context: BashToolContext): ToolOutcome {
  const call = beginTaskCall(shell, BASH_OUTPUT_RULES, input, context);
  if ("outcome" in call) return call.outcome;
  const output = call.task.read();
  const lines = outputSections(output.stdout, output.stderr, "(no new output)", call.keepControl);
  lines.push(...lossNotes(output), statusLine(call.task));
  return { text: lines.join("\n"), isError: false };
}
