/**
 * The tools of `@dsh/shell/tool` for the Vercel AI SDK (`ai`, an optional
 * peer dependency): `bash`, `bash_output` and `kill_shell` as its
 * `tool()`s, ready for `generateText({ tools })` or an `Agent`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { aiSdkTools } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const tools = aiSdkTools(shell, { owner: "chat-42" });
 * // generateText({ model, tools, prompt }) calls them; here, by hand:
 * const output = await tools.bash.execute({ command: "echo hi" }, { toolCallId: "call-1", messages: [], context: {} });
 * assert.deepEqual([output.text, output.isError], ["hi", false]);
 * ```
 *
 * @module
 */

import { jsonSchema, type Tool, tool } from "ai";
import type { Shell } from "../seam/types.ts";
import type { BashToolContext, ToolOutcomeData } from "../tool/mod.ts";
import { toolCalls } from "./tool_calls.ts";

/**
 * One AI SDK tool of the shell: any input (checked by the tool itself),
 * {@linkcode ToolOutcomeData} out, always with an `execute`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type AiSdkTool, aiSdkTools } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const bash: AiSdkTool = aiSdkTools(shell, { owner: null }).bash;
 * const output = await bash.execute({ command: "exit 1" }, { toolCallId: "call-1", messages: [], context: {} });
 * assert.equal(output.isError, true);
 * ```
 */
export type AiSdkTool = Omit<Tool<unknown, ToolOutcomeData>, "execute"> & {
  /** Runs one call, as the AI SDK does when the model asks for the tool. */
  execute(
    input: unknown,
    options: Parameters<NonNullable<Tool<unknown, ToolOutcomeData>["execute"]>>[1],
  ): Promise<ToolOutcomeData>;
};

/**
 * The three tools as the AI SDK's `tool()`s, by name. Each has the
 * description and JSON Schema of `./tool`; its `execute` runs the call on
 * `shell` as `options.owner`, cancelled by the SDK's `abortSignal` (the
 * command's whole process group is killed), and returns
 * {@linkcode ToolOutcomeData}; the model is shown its `text`, as an error
 * (`error-text`) when `isError`. An input the tool refuses is not thrown:
 * its message is that text, so the model can correct the call.
 *
 * Throws `TypeError` when `options.owner` is missing.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { aiSdkTools } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const { bash, bash_output } = aiSdkTools(shell, { owner: "chat-42" });
 * const call = { toolCallId: "call-1", messages: [], context: {} };
 * const started = await bash.execute({ command: "echo built", run_in_background: true }, call);
 * await shell.task(started.taskId ?? "", "chat-42").done;
 * const read = await bash_output.execute({ task_id: started.taskId }, call);
 * assert.equal(read.text, "built\n[status: completed; exit code: 0]");
 * ```
 */
export function aiSdkTools(
  shell: Shell,
  options: Pick<BashToolContext, "owner">,
): { bash: AiSdkTool; bash_output: AiSdkTool; kill_shell: AiSdkTool } {
  const [bash, bashOutput, killShell] = toolCalls(shell, options).map((call): AiSdkTool =>
    tool<unknown, ToolOutcomeData, Record<string, never>>({
      description: call.description,
      inputSchema: jsonSchema<unknown>(structuredClone(call.inputSchema)),
      execute: (input, { abortSignal }) => call.run(input, abortSignal),
      toModelOutput: ({ output }) => ({ type: output.isError ? "error-text" : "text", value: output.text }),
    }) as AiSdkTool
  );
  return { bash, bash_output: bashOutput, kill_shell: killShell };
}
