/**
 * The two unified-exec tools together, in the order a harness registers
 * them.
 *
 * @module
 */

import { execCommandTool } from "./exec_command_tool.ts";
import type { ExecCommandTool, WriteStdinTool } from "./types.ts";
import { writeStdinTool } from "./write_stdin_tool.ts";

/**
 * `[execCommandTool, writeStdinTool]`: the definitions to hand a model API,
 * with `executeExecCommandTool` and `executeWriteStdinTool` to run the
 * calls.
 *
 * @example
 * ```ts
 * import { unifiedExecTools } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const definitions = unifiedExecTools.map((tool) => ({
 *   name: tool.name,
 *   description: tool.description,
 *   input_schema: tool.inputSchema,
 * }));
 * assert.deepEqual(definitions.map((definition) => definition.name), ["exec_command", "write_stdin"]);
 * ```
 */
export const unifiedExecTools: readonly [ExecCommandTool, WriteStdinTool] = Object.freeze(
  [execCommandTool, writeStdinTool] as const,
);
