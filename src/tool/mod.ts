/**
 * The model-facing bash tool of `@dsh/shell`: a tool definition (`name`,
 * `description`, `inputSchema`) to hand to a model API, and
 * {@linkcode runBashTool}, which checks a call's input, runs it on a shell
 * and returns the text for the model.
 *
 * The inputs are Claude Code's: `command`, `description`, `timeout` (ms),
 * `workdir`, `run_in_background`. `stdin` and `env` are deliberately not
 * inputs — a model has pipes, heredocs and `VAR=x cmd` — and any unknown key
 * is refused with a {@linkcode ToolInputError} naming it, before anything is
 * spawned.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { bashTool, runBashTool } from "@dsh/shell/tool";
 *
 * import assert from "node:assert/strict";
 *
 * await using shell = createLocalShell();
 * // Offer the tool to the model: bashTool.name, bashTool.description, bashTool.inputSchema.
 * assert.equal(bashTool.name, "bash");
 * // Then, for each tool call the model makes:
 * const text = await runBashTool(shell, { command: "echo hello", description: "Say hello" }, { owner: "session-7" });
 * assert.equal(text, "hello");
 * ```
 *
 * @module
 */

export { bashTool } from "./bash_tool.ts";
export { runBashTool } from "./run.ts";
export { ToolInputError } from "./errors.ts";
export type { BashTool, BashToolContext, BashToolInput, BashToolInputSchema } from "./types.ts";
