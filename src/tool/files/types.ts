/**
 * The shapes of the file tools: Claude Code's `Read`, `Write` and `Edit`,
 * and Codex's `apply_patch`, with the agents' own names and inputs.
 *
 * @module
 */

import type { ToolInputSchema } from "../shared/types.ts";

/** `Read`'s input, as Claude Code names it. */
export interface ReadToolInput {
  /** The file: absolute, or relative to the shell's workdir. */
  file_path: string;
  /** The line to start from, from 1. */
  offset?: number;
  /** How many lines to read. */
  limit?: number;
}

/** `Write`'s input, as Claude Code names it. */
export interface WriteToolInput {
  /** The file: absolute, or relative to the shell's workdir. */
  file_path: string;
  /** The whole new content. */
  content: string;
}

/** `Edit`'s input, as Claude Code names it. */
export interface EditToolInput {
  /** The file: absolute, or relative to the shell's workdir. */
  file_path: string;
  /** The exact text to replace. */
  old_string: string;
  /** What replaces it. */
  new_string: string;
  /** Replace every occurrence. */
  replace_all?: boolean;
}

/** `apply_patch`'s input, as Codex's function tool names it. */
export interface ApplyPatchToolInput {
  /** The whole patch, `*** Begin Patch` to `*** End Patch`. */
  input: string;
}

/**
 * One file tool: a definition to hand a model API and the check of its
 * input. Run it with `executeFileTool(shell, tool, input, context)` or the
 * tool's own `execute…` function.
 *
 * @example
 * ```ts
 * import { fileTools } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * assert.deepEqual(fileTools.map((tool) => tool.name), ["Read", "Write", "Edit", "apply_patch"]);
 * assert.deepEqual(fileTools[0].inputSchema.required, ["file_path"]);
 * ```
 */
export interface FileTool<Name extends string, Input> {
  /** The agent's name for it. */
  readonly name: Name;
  /** What it does, written for the model. */
  readonly description: string;
  /** The JSON Schema of the input. */
  readonly inputSchema: ToolInputSchema;
  /** Checks a call's input; throws `ToolInputError` naming the key. */
  parse(input: unknown): Input;
}
