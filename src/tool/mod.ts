/**
 * The model-facing tools of `@dsh/shell`: the bash tool, and its two
 * companions for the background tasks it starts, `bash_output` and
 * `kill_shell`. Each is a definition (`name`, `description`,
 * `inputSchema`) to hand to a model API — `bashTools` lists the three — and
 * an `execute…` function that checks a call's input, runs it on a shell as
 * the harness's owner, and returns the text for the model with whether it
 * is an error.
 *
 * The bash tool's inputs are Claude Code's: `command`, `description`,
 * `timeout` (ms), `workdir`, `run_in_background`. `stdin` and `env` are
 * deliberately not inputs — a model has pipes, heredocs and `VAR=x cmd` —
 * and any unknown key is refused with a {@linkcode ToolInputError} naming
 * it, before anything is spawned. `bash_output` and `kill_shell` take
 * `{ task_id }`, and reach only the tasks of the caller's owner.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { bashTools, executeBashOutputTool, executeBashTool, executeKillShellTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 *
 * await using shell = createLocalShell();
 * // Offer the tools to the model: name, description and inputSchema of each.
 * assert.deepEqual(bashTools.map((tool) => tool.name), ["bash", "bash_output", "kill_shell"]);
 * // Then, for each tool call the model makes, as the session that owns the work:
 * const context = { owner: "session-7" };
 * const hello = await executeBashTool(shell, { command: "echo hello", description: "Say hello" }, context);
 * assert.deepEqual([hello.text, hello.isError], ["hello", false]);
 * const server = await executeBashTool(shell, { command: "echo listening; sleep 60", run_in_background: true }, context);
 * const task_id = server.taskId ?? "";
 * await shell.task(task_id, "session-7").waitForOutput(); // the harness may wait for news before the next turn
 * const read = await executeBashOutputTool(shell, { task_id }, context);
 * assert.equal(read.text, "listening\n[status: running]");
 * const killed = await executeKillShellTool(shell, { task_id }, context);
 * assert.match(killed.text, /^killed background task/);
 * ```
 *
 * @module
 */

export { bashSessionTool, bashTool } from "./bash/bash_tool.ts";
export { bashOutputTool } from "./bash/bash_output_tool.ts";
export { killShellTool } from "./bash/kill_shell_tool.ts";
export { bashTools } from "./bash/tools.ts";
export { runBashTool } from "./bash/run.ts";
export { executeBashTool } from "./bash/execute_bash.ts";
export { executeBashOutputTool } from "./bash/execute_bash_output.ts";
export { executeKillShellTool } from "./bash/execute_kill_shell.ts";
export { execCommandTool } from "./unified_exec/exec_command_tool.ts";
export { writeStdinTool } from "./unified_exec/write_stdin_tool.ts";
export { unifiedExecTools } from "./unified_exec/tools.ts";
export { executeExecCommandTool, executeWriteStdinTool } from "./unified_exec/execute.ts";
export { ToolInputError } from "./shared/errors.ts";
export { stripControlSequences } from "./shared/control_sequences.ts";
export { type ToolOutcomeData, toolOutcomeData } from "./outcome_data.ts";
export type { BashTool, BashToolInput, BashToolInputSchema, BashToolOutcome, RenderOptions } from "./bash/types.ts";
export type { BashToolContext, ToolInputSchema, ToolOutcome } from "./shared/types.ts";
export type { BashOutputTool, KillShellTool, TaskIdInput } from "./bash/task_types.ts";
export type {
  ExecCommandInput,
  ExecCommandTool,
  UnifiedExecOutcome,
  WriteStdinInput,
  WriteStdinTool,
} from "./unified_exec/types.ts";
export { applyPatchTool, editTool, fileTools, readTool, writeTool } from "./files/definitions.ts";
export { executeApplyPatchTool, executeEditTool, executeReadTool, executeWriteTool } from "./files/execute.ts";
export type { ApplyPatchToolInput, EditToolInput, FileTool, ReadToolInput, WriteToolInput } from "./files/types.ts";
