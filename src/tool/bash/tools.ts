/**
 * The three tool definitions together, in the order a harness offers them.
 *
 * @module
 */

import { bashOutputTool } from "./bash_output_tool.ts";
import { bashTool } from "./bash_tool.ts";
import { killShellTool } from "./kill_shell_tool.ts";
import type { BashOutputTool, KillShellTool } from "./task_types.ts";
import type { BashTool } from "./types.ts";

/**
 * The definitions of the bash tool and its two companions, in this order:
 * `bashTool`, `bashOutputTool`, `killShellTool`. The array is frozen, as
 * is each definition. Map it to a model API's tool list; run the calls
 * with `executeBashTool`, `executeBashOutputTool` and
 * `executeKillShellTool`.
 *
 * @example Anthropic Messages API and OpenAI function tools
 * ```ts
 * import { bashTools } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const anthropic = bashTools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
 * const openai = bashTools.map((t) => ({
 *   type: "function",
 *   function: { name: t.name, description: t.description, parameters: t.inputSchema },
 * }));
 * assert.deepEqual(anthropic.map((t) => t.name), ["bash", "bash_output", "kill_shell"]);
 * assert.equal(openai[2].function.parameters.additionalProperties, false);
 * assert.equal(Object.isFrozen(bashTools), true);
 * ```
 */
export const bashTools: readonly [BashTool, BashOutputTool, KillShellTool] = Object.freeze(
  [bashTool, bashOutputTool, killShellTool] as const,
);
