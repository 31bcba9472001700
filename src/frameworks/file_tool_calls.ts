/**
 * The four file tools of `./tool` (Read, Write, Edit, apply_patch) as data
 * for the framework adapters: a definition and a call, run as the owner
 * through `shell.files()`.
 *
 * @module
 */

import type { Shell } from "../seam/types.ts";
import { ShellArgumentError } from "../seam/errors.ts";
import {
  type BashToolContext,
  executeApplyPatchTool,
  executeEditTool,
  executeReadTool,
  executeWriteTool,
  fileTools,
  type ToolInputSchema,
  type ToolOutcomeData,
  toolOutcomeData,
} from "../tool/mod.ts";

/** The file tools' names, as the agents have them. */
export type FileToolName = "Read" | "Write" | "Edit" | "apply_patch";

/** One file tool: its definition and a call of it, as data. */
export interface FileToolCall {
  readonly name: FileToolName;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  run(input: unknown, signal: AbortSignal | undefined): Promise<ToolOutcomeData>;
}

const EXECUTE = [executeReadTool, executeWriteTool, executeEditTool, executeApplyPatchTool] as const;

/** The four file tools on `shell` as `options.owner`. Throws `ShellArgumentError` (a `TypeError`) when `owner` is missing. */
export function fileToolCalls(shell: Shell, options: Pick<BashToolContext, "owner">): readonly FileToolCall[] {
  const owner = typeof options === "object" && options !== null ? options.owner : undefined;
  if (owner !== null && typeof owner !== "string") {
    throw new ShellArgumentError("owner", "is required (a string, or null for unowned work)");
  }
  return fileTools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    // A file operation is short and bounded: the call's signal is not passed on (the shell's timeout applies).
    run: async (input) => toolOutcomeData(await EXECUTE[index](shell, input, { owner })),
  }));
}
