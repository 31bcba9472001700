/**
 * The public shapes of the bash tool: its input, the context a harness
 * passes with each call, the JSON Schema it hands to a model, what a call
 * returns, and the tool object itself.
 *
 * @module
 */

import type { ShellExecRequest, ShellRunResult, ShellSession } from "../../seam/types.ts";

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
 * How `bashTool.render` words a result.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { bashTool, type RenderOptions } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const result = await shell.exec("printf '\\033[31mred\\033[0m'");
 * assert.equal(bashTool.render(result), "red");
 * const raw: RenderOptions = { keepControlSequences: true };
 * assert.equal(bashTool.render(result, raw), "\x1b[31mred\x1b[0m");
 * ```
 */
export interface RenderOptions {
  /** Keep terminal control sequences in the text (default false: removed). */
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
 * The JSON Schema of the bash tool's input: a {@linkcode ToolInputSchema}
 * whose `required` is `["command"]`.
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
export type BashToolInputSchema = ToolInputSchema;

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

/**
 * What `executeBashTool` returns: the text the model sees (exactly what
 * `runBashTool` returns), whether it is an error, and what a harness needs
 * besides: the id of a started background task, or the result of a
 * foreground run.
 *
 * `isError` is true for an input the tool refuses (the text is the
 * `ToolInputError`'s message), a call the shell refuses (`[error] …`: a
 * spawn failure, an invalid spec, too many tasks), a timeout, an abort, a
 * signal and a nonzero exit. `taskId` is set exactly when a background task
 * was started (the text's first line is `started background task <id>`),
 * `result` exactly when a foreground command ran.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type BashToolOutcome, executeBashTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const outcome: BashToolOutcome = await executeBashTool(shell, { command: "exit 3" }, { owner: "session-7" });
 * assert.deepEqual([outcome.text, outcome.isError, outcome.result?.exitCode], ["(no output)\n[exit code: 3]", true, 3]);
 * assert.equal(outcome.taskId, undefined);
 * ```
 */
export interface BashToolOutcome extends ToolOutcome {
  /** The started task's id, for `run_in_background` (not when the start failed). */
  taskId?: string;
  /** The foreground run's result, when the command ran. */
  result?: ShellRunResult;
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
  /** Renders a result as the text the model sees (control sequences removed unless `options` keeps them). */
  render(result: ShellRunResult, options?: RenderOptions): string;
}
