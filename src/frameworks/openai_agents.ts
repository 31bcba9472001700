/**
 * The tools of `@dsh/shell/tool` for the OpenAI Agents SDK
 * (`@openai/agents`, an optional peer dependency): `bash`, `bash_output`,
 * `kill_shell`, `exec_command` and `write_stdin` (the MCP server's five) as
 * its function tools, ready for `new Agent({ tools })`. Give it a
 * `session` and the run's `bash` calls share it: `cd` and `export` carry
 * over, and the model is told so.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { openAIAgentsTools } from "@dsh/shell/openai-agents";
 * import { RunContext } from "@openai/agents";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const [bash] = openAIAgentsTools(shell, { owner: "run-9" });
 * // The runner calls it with the model's JSON arguments; here, by hand:
 * assert.equal(await bash.invoke(new RunContext(), JSON.stringify({ command: "echo hi" })), "hi");
 * ```
 *
 * @module
 */

import { type JsonSchemaDefinition, tool } from "@openai/agents";
import type { Shell, ShellSession } from "../seam/types.ts";
import type { BashToolContext, ToolInputSchema } from "../tool/mod.ts";
import { fileToolCalls } from "./file_tool_calls.ts";
import { type FrameworkToolName, toolCalls } from "./tool_calls.ts";

export type { FrameworkToolName } from "./tool_calls.ts";

/**
 * What {@linkcode openAIAgentsTools} takes: the owner of the work, and a
 * session for the `bash` calls to share.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type OpenAIAgentsToolOptions, openAIAgentsTools } from "@dsh/shell/openai-agents";
 * await using shell = createLocalShell();
 * await using session = shell.session({ owner: "run-9" });
 * const options: OpenAIAgentsToolOptions = { owner: "run-9", session };
 * console.log(openAIAgentsTools(shell, options).length);
 * ```
 */
export interface OpenAIAgentsToolOptions {
  /** The owner of everything the calls start (one per run, or conversation of runs), or `null` for unowned work. */
  owner: string | null;
  /**
   * A session of `owner` (`shell.session({ owner })`): the `bash` calls
   * run in it, so `cd` and `export` carry over to the next call, and the
   * model is told so (`bashSessionTool`'s description). Without it each
   * call is a fresh shell, and the model is told that too. Closing it is
   * the caller's.
   */
  session?: ShellSession;
}

/** The SDK's type of a non-strict JSON Schema. */
type NonStrictSchema = Extract<JsonSchemaDefinition["schema"], { additionalProperties: true }>;

/**
 * One of the shell's function tools: what a harness and the Agents SDK's
 * runner use of the `FunctionTool` its `tool()` made (that is what each
 * one is).
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type OpenAIAgentsTool, openAIAgentsTools } from "@dsh/shell/openai-agents";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const tools: OpenAIAgentsTool[] = openAIAgentsTools(shell, { owner: null });
 * assert.deepEqual(tools.map((tool) => [tool.type, tool.name, tool.strict]), [
 *   ["function", "bash", false],
 *   ["function", "bash_output", false],
 *   ["function", "kill_shell", false],
 *   ["function", "exec_command", false],
 *   ["function", "write_stdin", false],
 * ]);
 * ```
 */
export interface OpenAIAgentsTool {
  /** Always `"function"`. */
  readonly type: "function";
  /** `./tool`'s name. */
  readonly name: FrameworkToolName;
  /** `./tool`'s description. */
  readonly description: string;
  /** `./tool`'s JSON Schema. */
  readonly parameters: ToolInputSchema;
  /** Always false: the tool checks its input and answers a wrong one with a message the model can act on. */
  readonly strict: false;
  /** Runs one call from the model's JSON arguments; `details.signal` cancels the command. Resolves with the text. */
  invoke(runContext: unknown, input: string, details?: { readonly signal?: AbortSignal }): Promise<string>;
  /** Whether a call needs the user's approval: never (the sandbox and the owner are the boundary). */
  needsApproval(runContext: unknown, input: unknown, callId?: string): Promise<boolean>;
  /** Whether the tool is offered: always. */
  isEnabled(runContext: unknown, agent: unknown): Promise<boolean>;
}

/**
 * The five tools as the Agents SDK's function tools, in the order
 * `bash`, `bash_output`, `kill_shell`, `exec_command`, `write_stdin`. Each has the name, description and
 * JSON Schema of `./tool` (non-strict: the tool checks its input itself
 * and answers a wrong one with a message the model can act on); a call
 * runs on `shell` as `options.owner`, cancelled by the run's signal (the
 * command's whole process group is killed), and the model is shown the
 * tool's text (`[exit code: N]`, `[error] …` say when it failed).
 *
 * With `options.session` (one per run, or per conversation of runs) the
 * `bash` calls run in it, so `cd` and `export` carry over, and `bash`'s
 * description says so (`bashSessionTool`'s); without it each call is a
 * fresh shell, as `bashTool`'s description says. The Agents SDK shows a
 * function tool's output only once it returns: there is no live output
 * here.
 *
 * Throws a `TypeError` of the library's family (`code`
 * `"ERR_SHELL_ARGUMENT"`) when `options.owner` is missing, or the session is
 * another owner's.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { openAIAgentsTools } from "@dsh/shell/openai-agents";
 * import { RunContext } from "@openai/agents";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const tools = openAIAgentsTools(shell, { owner: "run-9" });
 * const text = await tools[0].invoke(new RunContext(), JSON.stringify({ command: "exit 3" }));
 * assert.equal(text, "(no output)\n[exit code: 3]");
 * ```
 */
export function openAIAgentsTools(shell: Shell, options: OpenAIAgentsToolOptions): OpenAIAgentsTool[] {
  return toolCalls(shell, options).map((call) => {
    const made = tool({
      name: call.name,
      description: call.description,
      // The SDK types a non-strict schema as `additionalProperties: true`, and sends it as it is; `./tool`'s says
      // false, so that the model is told no other key is accepted.
      parameters: structuredClone(call.inputSchema) as unknown as NonStrictSchema,
      strict: false,
      execute: async (input, _context, details) => (await call.run(input, details?.signal)).text,
    });
    // What tool() made is a FunctionTool whose execute returns text: the interface names what it has.
    return made as unknown as OpenAIAgentsTool;
  });
}

/** A file tool as the OpenAI Agents SDK runs it: {@linkcode OpenAIAgentsTool} with a file tool's name. */
export interface OpenAIAgentsFileTool extends Omit<OpenAIAgentsTool, "name"> {
  /** The agent's name for it: `Read`, `Write`, `Edit` or `apply_patch`. */
  readonly name: "Read" | "Write" | "Edit" | "apply_patch";
}

/**
 * Claude Code's `Read`, `Write` and `Edit` and Codex's `apply_patch` as
 * OpenAI Agents SDK function tools (non-strict: the tool checks its input),
 * run as `options.owner` where the shell's commands run: pass them to
 * `new Agent({ tools })`, beside `openAIAgentsTools`. Throws a `TypeError`
 * of the library's family (`code` `"ERR_SHELL_ARGUMENT"`) when `owner` is
 * missing.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { openAIAgentsFileTools } from "@dsh/shell/openai-agents";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const tools = openAIAgentsFileTools(shell, { owner: "run-1" });
 * assert.deepEqual(tools.map((tool) => tool.name), ["Read", "Write", "Edit", "apply_patch"]);
 * ```
 */
export function openAIAgentsFileTools(shell: Shell, options: Pick<BashToolContext, "owner">): OpenAIAgentsFileTool[] {
  return fileToolCalls(shell, options).map((call) => {
    const made = tool({
      name: call.name,
      description: call.description,
      parameters: structuredClone(call.inputSchema) as unknown as NonStrictSchema,
      strict: false,
      execute: async (input, _context, details) => (await call.run(input, details?.signal)).text,
    });
    return made as unknown as OpenAIAgentsFileTool;
  });
}
