/**
 * The shapes every tool family shares: the context a harness passes with
 * each call, the JSON Schema of an input as a model API is given it, and
 * what a call gives back to the model.
 *
 * @module
 */

import type { ShellSession } from "../../seam/types.ts";

/**
 * What the harness adds to each call of the bash tool, and of
 * `bash_output` and `kill_shell`: who the call belongs to and how to
 * cancel it. Neither comes from the model.
 *
 * @example
 * ```ts
 * import { bashTool, type BashToolContext } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const turn = new AbortController();
 * const context: BashToolContext = { owner: "session-7", signal: turn.signal };
 * const request = bashTool.toRequest(bashTool.parse({ command: "make" }), context);
 * assert.equal(request.owner, "session-7");
 * assert.equal(request.signal, turn.signal);
 * ```
 */
export interface BashToolContext {
  /**
   * The owner of the work (usually the session id). Required, but may be
   * `null` for explicitly unowned work: a background task started then is
   * readable by every owner. `bash_output` and `kill_shell` reach only
   * the tasks this owner may see.
   */
  owner: string | null;
  /**
   * Cancels the call. For bash the command's whole process group is
   * terminated (a background task's too, for as long as it runs); for
   * `kill_shell` the wait for the task's end stops. Already aborted: every
   * tool rejects with its reason and does nothing.
   */
  signal?: AbortSignal;
  /**
   * The bash tool's output as it arrives, for a harness that shows the
   * command live: each stdout chunk, in order, as its own copy, while the
   * command runs (the foreground's and a background task's alike). What
   * the model is sent is still the rendered result.
   */
  onStdout?(chunk: Uint8Array): void;
  /** Each stderr chunk, as {@linkcode BashToolContext.onStdout} has stdout's. */
  onStderr?(chunk: Uint8Array): void;
  /**
   * For the bash tool: a session of `owner` (`shell.session({ owner })`)
   * that the calls follow, as Claude Code's Bash tool keeps its working
   * directory. A foreground command runs in it (the input's `workdir`, if
   * given, is where that command starts, and the session follows it like
   * a `cd`); a background one starts from its state.
   */
  session?: ShellSession;
  /**
   * Keep terminal control sequences (CSI, OSC, other control characters
   * but `\t`, `\n`, `\r`) in the text for the model. Default false: they
   * are removed from the text of every tool (`bash`, `bash_output`,
   * `exec_command`, `write_stdin`); results, observers and spill files
   * always have the raw bytes.
   */
  keepControlSequences?: boolean;
}

/**
 * The JSON Schema of a tool's input, as handed to a model API (Anthropic
 * `input_schema`, OpenAI function `parameters`, MCP `inputSchema`): an
 * object schema that accepts no other key. The objects of `./tool` are
 * frozen; `structuredClone` one to change it.
 *
 * @example
 * ```ts
 * import { bashTools, type ToolInputSchema } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const schemas: ToolInputSchema[] = bashTools.map((tool) => tool.inputSchema);
 * assert.deepEqual(schemas.map((schema) => schema.required), [["command"], ["task_id"], ["task_id"]]);
 * assert.ok(schemas.every((schema) => schema.additionalProperties === false && Object.isFrozen(schema)));
 * ```
 */
export interface ToolInputSchema {
  /** Always `"object"`. */
  type: "object";
  /** One JSON Schema per input, by name. */
  properties: Record<string, Record<string, unknown>>;
  /** The inputs that must be given. */
  required: string[];
  /** Always `false`: no other key is accepted. */
  additionalProperties: false;
  /** Any other JSON Schema keyword. */
  [keyword: string]: unknown;
}

/**
 * What a tool call gives back to the model: the text, and whether the
 * harness should mark it as an error (Anthropic `is_error: true`, an MCP
 * `isError`). What `executeBashOutputTool` and `executeKillShellTool`
 * return.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeBashOutputTool, type ToolOutcome } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const outcome: ToolOutcome = await executeBashOutputTool(shell, { task_id: "t0" }, { owner: "session-7" });
 * const toolResult = { type: "tool_result", tool_use_id: "toolu_01", content: outcome.text, is_error: outcome.isError };
 * assert.equal(toolResult.is_error, true); // no such task
 * ```
 */
export interface ToolOutcome {
  /** The text for the model. */
  text: string;
  /** True when the call failed, or (for bash) the command did not succeed. */
  isError: boolean;
}
