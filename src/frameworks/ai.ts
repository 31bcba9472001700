/**
 * The tools of `@dsh/shell/tool` for the Vercel AI SDK (`ai`, an optional
 * peer dependency): `bash`, `bash_output` and `kill_shell` in the shape of
 * its `tool()`, ready for `generateText({ tools })` or an `Agent`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { aiSdkTools } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const tools = aiSdkTools(shell, { owner: "chat-42" });
 * // generateText({ model, tools, prompt }) calls them; here, by hand:
 * const output = await tools.bash.execute({ command: "echo hi" }, { toolCallId: "call-1" });
 * assert.deepEqual([output.text, output.isError], ["hi", false]);
 * ```
 *
 * @module
 */

import { tool } from "ai";
import type { Shell } from "../seam/types.ts";
import type { BashToolContext, ToolInputSchema, ToolOutcomeData } from "../tool/mod.ts";
import { fileToolCalls } from "./file_tool_calls.ts";
import { toolCalls } from "./tool_calls.ts";

/**
 * A tool's input schema as the AI SDK reads one: a Standard Schema
 * (`~standard`) that also gives its JSON Schema (Standard JSON Schema), so
 * the model is shown `./tool`'s schema as it is. Its `validate` accepts
 * every input: the tool checks its input itself and answers a wrong one
 * with a message the model can act on.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { aiSdkTools, type ToolInputStandardSchema } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const schema: ToolInputStandardSchema = aiSdkTools(shell, { owner: null }).bash.inputSchema;
 * assert.deepEqual(schema["~standard"].jsonSchema.input({ target: "draft-07" }).required, ["command"]);
 * ```
 */
export interface ToolInputStandardSchema {
  /** The Standard Schema properties. */
  readonly "~standard": {
    /** The Standard Schema version. */
    readonly version: 1;
    /** Who made the schema: `"@dsh/shell"`. */
    readonly vendor: string;
    /** Accepts every input as it is (the tool checks it). */
    validate(value: unknown): { readonly value: unknown };
    /** The JSON Schema, the same for input and output, whatever the target. */
    readonly jsonSchema: {
      /** The input's JSON Schema: `./tool`'s. */
      input(options: { readonly target: string }): ToolInputSchema;
      /** The same. */
      output(options: { readonly target: string }): ToolInputSchema;
    };
  };
}

/**
 * One AI SDK tool of the shell: the description and input schema of
 * `./tool`, an `execute` that runs a call, and `toModelOutput`, which
 * shows the model the text (as `error-text` when `isError`).
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type AiSdkTool, aiSdkTools } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const bash: AiSdkTool = aiSdkTools(shell, { owner: null }).bash;
 * const output = await bash.execute({ command: "exit 1" }, { toolCallId: "call-1" });
 * assert.deepEqual(bash.toModelOutput({ output }), { type: "error-text", value: "(no output)\n[exit code: 1]" });
 * ```
 */
export interface AiSdkTool {
  /** What the tool does, for the model: `./tool`'s description. */
  readonly description: string;
  /** The input schema. */
  readonly inputSchema: ToolInputStandardSchema;
  /** Runs one call, as the SDK does when the model asks for the tool; its `abortSignal` cancels the command. */
  execute(
    input: unknown,
    options: { readonly toolCallId: string; readonly abortSignal?: AbortSignal },
  ): Promise<ToolOutcomeData>;
  /** What the model is shown of an output: its text. */
  toModelOutput(
    options: { readonly toolCallId?: string; readonly input?: unknown; readonly output: ToolOutcomeData },
  ): { type: "text" | "error-text"; value: string };
}

/** The schema of `./tool` as a Standard Schema with its JSON Schema. */
function standardSchema(schema: ToolInputSchema): ToolInputStandardSchema {
  return {
    "~standard": {
      version: 1,
      vendor: "@dsh/shell",
      validate: (value) => ({ value }),
      jsonSchema: { input: () => structuredClone(schema), output: () => structuredClone(schema) },
    },
  };
}

/**
 * The three tools in the shape of the AI SDK's `tool()`, by name. Each has
 * the description and JSON Schema of `./tool`; its `execute` runs the call
 * on `shell` as `options.owner`, cancelled by the SDK's `abortSignal` (the
 * command's whole process group is killed), and returns
 * {@linkcode ToolOutcomeData}; the model is shown its `text`, as an error
 * (`error-text`) when `isError`. An input the tool refuses is not thrown:
 * its message is that text, so the model can correct the call.
 *
 * Throws `TypeError` when `options.owner` is missing.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { aiSdkTools } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const { bash, bash_output } = aiSdkTools(shell, { owner: "chat-42" });
 * const call = { toolCallId: "call-1" };
 * const started = await bash.execute({ command: "echo built", run_in_background: true }, call);
 * await shell.task(started.taskId ?? "", "chat-42").done;
 * const read = await bash_output.execute({ task_id: started.taskId }, call);
 * assert.equal(read.text, "built\n[status: completed; exit code: 0]");
 * ```
 */
export function aiSdkTools(
  shell: Shell,
  options: Pick<BashToolContext, "owner">,
): { bash: AiSdkTool; bash_output: AiSdkTool; kill_shell: AiSdkTool } {
  const [bash, bashOutput, killShell] = toolCalls(shell, options).map((call) => {
    const definition: AiSdkTool = {
      description: call.description,
      inputSchema: standardSchema(call.inputSchema),
      execute: (input, { abortSignal }) => call.run(input, abortSignal),
      toModelOutput: ({ output }) => ({ type: output.isError ? "error-text" : "text", value: output.text }),
    };
    // tool() returns its argument; passing the definition through it checks, at compile time, that it is an AI SDK tool.
    return tool(definition) as AiSdkTool;
  });
  return { bash, bash_output: bashOutput, kill_shell: killShell };
}

/**
 * Claude Code's `Read`, `Write` and `Edit` and Codex's `apply_patch` as AI
 * SDK tools, run as `options.owner` where the shell's commands run (under
 * its sandbox, on its engine): pass them to `generateText({ tools })`,
 * beside `aiSdkTools`. Throws `TypeError` when `owner` is missing.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { aiSdkFileTools } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * await using shell = createLocalShell({ workdir: mkdtempSync(join(tmpdir(), "ai-files-")) });
 * const { Write, Read } = aiSdkFileTools(shell, { owner: "chat-1" });
 * await Write.execute({ file_path: "a.txt", content: "hi\n" }, { toolCallId: "1" });
 * const read = await Read.execute({ file_path: "a.txt" }, { toolCallId: "2" });
 * assert.deepEqual(read, { text: "1\thi\n2\t", isError: false });
 * ```
 */
export function aiSdkFileTools(
  shell: Shell,
  options: Pick<BashToolContext, "owner">,
): { Read: AiSdkTool; Write: AiSdkTool; Edit: AiSdkTool; apply_patch: AiSdkTool } {
  const [read, write, edit, applyPatch] = fileToolCalls(shell, options).map((call) => {
    const schema = call.inputSchema;
    const definition: AiSdkTool = {
      description: call.description,
      inputSchema: {
        "~standard": {
          version: 1,
          vendor: "@dsh/shell",
          validate: (value) => ({ value }),
          jsonSchema: { input: () => structuredClone(schema), output: () => structuredClone(schema) },
        },
      },
      execute: (input, { abortSignal }) => call.run(input, abortSignal),
      toModelOutput: ({ output }) => ({ type: output.isError ? "error-text" : "text", value: output.text }),
    };
    return tool(definition) as AiSdkTool;
  });
  return { Read: read, Write: write, Edit: edit, apply_patch: applyPatch };
}
