/**
 * The tools of `@dsh/shell/tool` for the OpenAI Agents SDK
 * (`@openai/agents`, an optional peer dependency): `bash`, `bash_output`
 * and `kill_shell` as its function tools, ready for `new Agent({ tools })`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { openAIAgentsTools } from "@dsh/shell/openai-agents";
 * import { RunContext } from "@openai/agents";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const [bash] = openAIAgentsTools(shell, { owner: "run-9" });
 * // The runner calls it with the model's JSON arguments; here, by hand:
 * assert.equal(await bash.invoke(new RunContext(), JSON.stringify({ command: "echo hi" })), "hi");
 * ```
 *
 * @module
 */

import { type FunctionTool, type JsonSchemaDefinition, tool } from "@openai/agents";
import type { Shell } from "../seam/types.ts";
import type { BashToolContext } from "../tool/mod.ts";
import { toolCalls } from "./tool_calls.ts";

/**
 * The SDK's type of a non-strict JSON Schema. It says `additionalProperties: true`; the SDK sends a non-strict
 * schema as it is, and `./tool`'s say `false`, so that the model is told no other key is accepted.
 */
type NonStrictSchema = Extract<JsonSchemaDefinition["schema"], { additionalProperties: true }>;

/** One of the shell's function tools: JSON Schema parameters, any context, text out. */
export type OpenAIAgentsTool = FunctionTool<unknown, NonStrictSchema, unknown>;

/**
 * The three tools as the Agents SDK's function tools, in the order
 * `bash`, `bash_output`, `kill_shell`. Each has the name, description and
 * JSON Schema of `./tool` (non-strict: the tool checks its input itself
 * and answers a wrong one with a message the model can act on); a call
 * runs on `shell` as `options.owner`, cancelled by the run's signal (the
 * command's whole process group is killed), and the model is shown the
 * tool's text (`[exit code: N]`, `[error] …` say when it failed).
 *
 * Throws `TypeError` when `options.owner` is missing.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { openAIAgentsTools } from "@dsh/shell/openai-agents";
 * import { RunContext } from "@openai/agents";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const tools = openAIAgentsTools(shell, { owner: "run-9" });
 * assert.deepEqual(tools.map((tool) => tool.name), ["bash", "bash_output", "kill_shell"]);
 * const text = await tools[0].invoke(new RunContext(), JSON.stringify({ command: "exit 3" }));
 * assert.equal(text, "(no output)\n[exit code: 3]");
 * ```
 */
export function openAIAgentsTools(shell: Shell, options: Pick<BashToolContext, "owner">): OpenAIAgentsTool[] {
  return toolCalls(shell, options).map((call) =>
    tool({
      name: call.name,
      description: call.description,
      parameters: structuredClone(call.inputSchema) as unknown as NonStrictSchema,
      strict: false,
      execute: async (input, _context, details) => (await call.run(input, details?.signal)).text,
    })
  );
}
