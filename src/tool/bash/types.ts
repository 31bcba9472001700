/**
 * The public shapes of the bash tool: its input, how its result is
 * rendered, what a call returns, and the tool object itself.
 *
 * @module
 */

import type { ShellExecRequest, ShellRunResult } from "../../seam/types.ts";
import type { BashToolContext, ToolInputSchema, ToolOutcome } from "../shared/types.ts";

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
