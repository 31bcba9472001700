/**
 * The public shapes of the task tools, `bash_output` and `kill_shell`:
 * their input and the tool objects.
 *
 * @module
 */

import type { ToolInputSchema } from "../shared/types.ts";

/**
 * The arguments of one `bash_output` or `kill_shell` call, after the tool's
 * `parse` checked them: the id the bash tool gave when it started a
 * background task (`started background task <id>`).
 *
 * @example
 * ```ts
 * import { bashOutputTool, type TaskIdInput } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const input: TaskIdInput = bashOutputTool.parse({ task_id: "t1ae911cad4" });
 * assert.equal(input.task_id, "t1ae911cad4");
 * ```
 */
export interface TaskIdInput {
  /** The task's id. Never empty. */
  task_id: string;
}

/**
 * The `bash_output` tool: its name, description and input schema for the
 * model API, and the check of a call's input. `executeBashOutputTool`
 * runs a call.
 *
 * @example
 * ```ts
 * import { bashOutputTool, type BashOutputTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const tool: BashOutputTool = bashOutputTool;
 * assert.equal(tool.name, "bash_output");
 * assert.deepEqual(tool.inputSchema.required, ["task_id"]);
 * ```
 */
export interface BashOutputTool {
  /** The tool's name: `"bash_output"`. */
  readonly name: "bash_output";
  /** What the tool does and how to use it, written for the model. */
  readonly description: string;
  /** The JSON Schema of the input: `{ task_id: string }`, nothing else. */
  readonly inputSchema: ToolInputSchema;
  /**
   * Checks a call's input. Throws `ToolInputError` naming the key: an
   * unknown key (`bash_id`, `filter`, …), a missing or empty `task_id`, one
   * that is not a string.
   */
  parse(input: unknown): TaskIdInput;
}

/**
 * The `kill_shell` tool: its name, description and input schema for the
 * model API, and the check of a call's input. `executeKillShellTool` runs
 * a call.
 *
 * @example
 * ```ts
 * import { killShellTool, type KillShellTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const tool: KillShellTool = killShellTool;
 * assert.equal(tool.name, "kill_shell");
 * assert.throws(() => tool.parse({ shell_id: "t1" }), /^ToolInputError: shell_id is not an input/);
 * ```
 */
export interface KillShellTool {
  /** The tool's name: `"kill_shell"`. */
  readonly name: "kill_shell";
  /** What the tool does and how to use it, written for the model. */
  readonly description: string;
  /** The JSON Schema of the input: `{ task_id: string }`, nothing else. */
  readonly inputSchema: ToolInputSchema;
  /**
   * Checks a call's input. Throws `ToolInputError` naming the key: an
   * unknown key (`shell_id`, …), a missing or empty `task_id`, one that is
   * not a string.
   */
  parse(input: unknown): TaskIdInput;
}
