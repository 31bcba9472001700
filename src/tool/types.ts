/**
 * The public shapes of the bash tool: its input, the context a harness
 * passes with each call, the JSON Schema it hands to a model, and the tool
 * object itself.
 *
 * @module
 */

import type { ShellExecRequest, ShellRunResult } from "../seam/types.ts";

/**
 * The arguments of one bash tool call, after `bashTool.parse`
 * checked them. The names are Claude Code's (`workdir` is Codex's).
 *
 * @example
 * ```ts
 * import { bashTool, type BashToolInput } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const input: BashToolInput = bashTool.parse({ command: "npm test", description: "Run the tests", timeout: 300_000 });
 * assert.equal(input.timeout, 300_000);
 * ```
 */
export interface BashToolInput {
  /** The command line, run as `bash -c <command>`. Never empty. */
  command: string;
  /** What the command does, for the user; not used to run it. */
  description?: string;
  /** Foreground timeout in milliseconds: positive and finite; the shell caps it at its `maxTimeoutMs`. */
  timeout?: number;
  /** Working directory, absolute or relative to the shell's workdir. Never empty. */
  workdir?: string;
  /** Start a background task instead of waiting for the command. */
  run_in_background?: boolean;
}

/**
 * What the harness adds to each call: who the call belongs to and how to
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
   * readable by every owner.
   */
  owner: string | null;
  /** Cancels the call: the command's whole process group is terminated. */
  signal?: AbortSignal;
}

/**
 * The JSON Schema of the tool's input, as handed to a model API (Anthropic
 * `input_schema`, OpenAI function `parameters`, MCP `inputSchema`). The
 * object is frozen; `structuredClone` it to change it.
 *
 * @example
 * ```ts
 * import { bashTool, type BashToolInputSchema } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const schema: BashToolInputSchema = bashTool.inputSchema;
 * const inputs = ["command", "description", "timeout", "workdir", "run_in_background"];
 * assert.deepEqual(Object.keys(schema.properties), inputs);
 * assert.equal(Object.isFrozen(schema), true); // structuredClone it to change it
 * ```
 */
export interface BashToolInputSchema {
  /** Always `"object"`. */
  type: "object";
  /** One JSON Schema per input, by name. */
  properties: Record<string, Record<string, unknown>>;
  /** The inputs that must be given: `["command"]`. */
  required: string[];
  /** Always `false`: no other key is accepted. */
  additionalProperties: false;
  /** Any other JSON Schema keyword. */
  [keyword: string]: unknown;
}

/**
 * The model-facing bash tool: its name, description and input schema for
 * the model API, and the three steps of a call — check the input, build
 * the shell request, render the result as text for the model.
 * `runBashTool` does all of it.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { bashTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const input = bashTool.parse({ command: "echo hi" });
 * const result = await shell.run(shell.resolve(bashTool.toRequest(input, { owner: "session-7" })));
 * assert.equal(bashTool.render(result), "hi"); // the trailing newline is trimmed
 * ```
 */
export interface BashTool {
  /** The tool's name: `"bash"`. */
  readonly name: "bash";
  /** What the tool does and how to use it, written for the model. */
  readonly description: string;
  /** The JSON Schema of the input. */
  readonly inputSchema: BashToolInputSchema;
  /**
   * Checks a tool call's input. Throws `ToolInputError` naming the
   * key: unknown keys (`stdin`, `env`, `dshEnv`, `stdoutMaxBytes`, …), a
   * missing or empty `command`, a field of the wrong type.
   */
  parse(input: unknown): BashToolInput;
  /**
   * Builds the shell request from the declared inputs, the owner and the
   * signal only; any other property of `input` or `context` is ignored.
   */
  toRequest(input: BashToolInput, context: BashToolContext): ShellExecRequest;
  /** Renders a result as the text the model sees. */
  render(result: ShellRunResult): string;
}
