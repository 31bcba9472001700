/**
 * The `kill_shell` tool as one object: what a harness registers with a
 * model API next to the bash tool, so the model can stop the background
 * tasks it started.
 *
 * @module
 */

import { DEFAULTS } from "../../seam/defaults.ts";
import { checkInput } from "../shared/check_input.ts";
import { taskIdInputSchema, taskIdRules } from "./task_id_input.ts";
import type { KillShellTool } from "./task_types.ts";

/** The input rules: `{ task_id }`, and what to say to inputs other kill tools have. */
export const KILL_SHELL_RULES = taskIdRules("kill_shell", [
  ["signal", "kill_shell always sends SIGTERM to the whole process tree, then SIGKILL to what is left"],
  ["force", "kill_shell always sends SIGTERM to the whole process tree, then SIGKILL to what is left"],
]);

/** The description of the `kill_shell` tool, written for the model. */
const DESCRIPTION: string = [
  "Stops a background task that the bash tool started with `run_in_background: true`, with its whole process tree.",
  "- `task_id` is the id from `started background task <id>`.",
  `- The task's processes get SIGTERM, then SIGKILL about ${DEFAULTS.graceMs / 1000} seconds later if any is ` +
  "still running. The call returns once the task has ended, with its status, e.g. `[status: killed; signal: SIGTERM]`.",
  "- A task that had already ended keeps its status: the answer says so, and stops anything the task's command left " +
  "running in the background (`cmd &`).",
  "- What the task printed before it ended can still be read with bash_output.",
  "- Use it for servers, watchers and other background tasks you no longer need, instead of `kill` in a bash command.",
].join("\n");

/**
 * The `kill_shell` tool: `name` (`"kill_shell"`), `description` and
 * `inputSchema` for the model API, and `parse`, the check of a call's
 * input (`{ task_id }`; any other key, a missing or empty `task_id`, is
 * refused with a `ToolInputError` naming it). The object is frozen.
 * `executeKillShellTool` runs a call.
 *
 * @example Register it with the bash tool
 * ```ts
 * import { bashTool, killShellTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const tools = [bashTool, killShellTool].map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
 * assert.deepEqual(tools.map((t) => t.name), ["bash", "kill_shell"]);
 * assert.deepEqual(Object.keys(tools[1].input_schema.properties), ["task_id"]);
 * assert.throws(() => killShellTool.parse({ task_id: "" }), { name: "ToolInputError", field: "task_id" });
 * ```
 */
export const killShellTool: KillShellTool = Object.freeze({
  name: "kill_shell",
  description: DESCRIPTION,
  inputSchema: taskIdInputSchema,
  parse: (input: unknown) => checkInput(KILL_SHELL_RULES, input),
});
