/**
 * What both framework adapters wrap: the three tools of `./tool`, each
 * with the function that runs a call, and the owner the harness gives.
 *
 * @module
 */

import type { Shell } from "../seam/types.ts";
import {
  bashOutputTool,
  bashTool,
  type BashToolContext,
  executeBashOutputTool,
  executeBashTool,
  executeKillShellTool,
  killShellTool,
  type ToolInputSchema,
  type ToolOutcomeData,
  toolOutcomeData,
} from "../tool/mod.ts";

/** One tool: its definition and a call of it, as data. */
export interface ToolCall {
  readonly name: "bash" | "bash_output" | "kill_shell";
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  run(input: unknown, signal: AbortSignal | undefined): Promise<ToolOutcomeData>;
}

/** The three tools on `shell` as `options.owner`. Throws `TypeError` when `owner` is missing. */
export function toolCalls(shell: Shell, options: Pick<BashToolContext, "owner">): readonly ToolCall[] {
  const owner = typeof options === "object" && options !== null ? options.owner : undefined;
  if (owner !== null && typeof owner !== "string") {
    throw new TypeError("owner: is required (a string, or null for unowned work)");
  }
  const contextOf = (signal: AbortSignal | undefined) => signal === undefined ? { owner } : { owner, signal };
  return [
    { tool: bashTool, execute: executeBashTool },
    { tool: bashOutputTool, execute: executeBashOutputTool },
    { tool: killShellTool, execute: executeKillShellTool },
  ].map(({ tool, execute }) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    run: async (input, signal) => toolOutcomeData(await execute(shell, input, contextOf(signal))),
  }));
}
