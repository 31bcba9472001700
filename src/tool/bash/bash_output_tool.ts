/**
 * The `bash_output` tool as one object: what a harness registers with a
 * model API next to the bash tool, so the model can read the background
 * tasks it started.
 *
 * @module
 */

import { DEFAULTS } from "../../seam/defaults.ts";
import { checkInput } from "../shared/check_input.ts";
import { taskIdInputSchema, taskIdRules } from "./task_id_input.ts";
import type { BashOutputTool } from "./task_types.ts";

/** The input rules: `{ task_id }`, and what to say to Claude Code's other inputs. */
export const BASH_OUTPUT_RULES = taskIdRules("bash_output", [
  ["filter", "bash_output returns all new output; to search long output, grep the file a truncation line names"],
  ["block", "bash_output returns at once; to wait, run `sleep N` with the bash tool before reading"],
  ["wait", "bash_output returns at once; to wait, run `sleep N` with the bash tool before reading"],
  ["timeout", "bash_output returns at once; to wait, run `sleep N` with the bash tool before reading"],
]);

/** The description of the `bash_output` tool, written for the model. */
const DESCRIPTION: string = [
  "Reads the output of a background task that the bash tool started with `run_in_background: true`.",
  "- `task_id` is the id from `started background task <id>`.",
  "- Returns only what the task printed since the previous bash_output call for it: stdout, then a `[stderr]` line " +
  "and stderr; `(no new output)` when there is nothing new. Output stays readable after the task has ended.",
  "- The last line is the task's status: `[status: running]`, or once it has ended " +
  "`[status: completed; exit code: N]`, `[status: killed; signal: SIGTERM]` (stopped by kill_shell or the user), " +
  "`[status: killed; it never started]` (the reason is on stderr).",
  "- It returns at once and does not wait for output. While a task runs, do other work between reads, " +
  "or wait with the bash tool (`sleep 10`).",
  `- About ${DEFAULTS.maxOutputBytes} bytes of unread output are kept per stream: when more arrived, the newest ` +
  "part is shown and a `[stdout truncated: ...; full output: PATH]` line names a file with the complete stream; " +
  "grep or tail that file.",
  "- Stop a task you no longer need with kill_shell.",
].join("\n");

/**
 * The `bash_output` tool: `name` (`"bash_output"`), `description` and
 * `inputSchema` for the model API, and `parse`, the check of a call's
 * input (`{ task_id }`; any other key, a missing or empty `task_id`, is
 * refused with a `ToolInputError` naming it). The object is frozen.
 * `executeBashOutputTool` runs a call.
 *
 * @example Register it with the bash tool
 * ```ts
 * import { bashOutputTool, bashTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const tools = [bashTool, bashOutputTool].map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
 * assert.deepEqual(tools.map((t) => t.name), ["bash", "bash_output"]);
 * assert.deepEqual(tools[1].input_schema.required, ["task_id"]);
 * assert.deepEqual(bashOutputTool.parse({ task_id: "t1ae911cad4" }), { task_id: "t1ae911cad4" });
 * assert.throws(() => bashOutputTool.parse({ bash_id: "t1ae911cad4" }), { name: "ToolInputError", field: "bash_id" });
 * ```
 */
export const bashOutputTool: BashOutputTool = Object.freeze({
  name: "bash_output",
  description: DESCRIPTION,
  inputSchema: taskIdInputSchema,
  parse: (input: unknown) => checkInput(BASH_OUTPUT_RULES, input),
});
