/**
 * The tools of `@dsh/shell/tool` for the Vercel AI SDK (`ai`, an optional
 * peer dependency): `bash`, `bash_output`, `kill_shell`, `exec_command`
 * and `write_stdin` (the MCP server's five) in the shape of its `tool()`,
 * ready for `generateText({ tools })` or an `Agent`. Give it a `session`
 * and the conversation's `bash` calls share it: `cd` and `export` carry
 * over, and the model is told so.
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
import type { Shell, ShellSession } from "../seam/types.ts";
import { ShellArgumentError } from "../seam/errors.ts";
import type { BashToolContext, ToolInputSchema, ToolOutcomeData } from "../tool/mod.ts";
import { DEFAULTS } from "../seam/defaults.ts";
import { LIVE_INTERVAL_MS, LiveOutput } from "./live_output.ts";
import { fileToolCalls } from "./file_tool_calls.ts";
import { type ToolCall, toolCalls } from "./tool_calls.ts";

/**
 * What {@linkcode aiSdkTools} takes: the owner of the work, a session for
 * the `bash` calls to share, and whether `bash` streams its output.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type AiSdkToolOptions, aiSdkTools } from "@dsh/shell/ai";
 * await using shell = createLocalShell();
 * const options: AiSdkToolOptions = { owner: "chat-42", stream: true };
 * console.log(Object.keys(aiSdkTools(shell, options)));
 * ```
 */
export interface AiSdkToolOptions {
  /** The owner of everything the calls start (one per conversation), or `null` for unowned work. */
  owner: string | null;
  /**
   * A session of `owner` (`shell.session({ owner })`), one per
   * conversation: the `bash` calls run in it, so `cd` and `export` carry
   * over to the next call, and the model is told so (`bashSessionTool`'s
   * description). Without it each call is a fresh shell, and the model is
   * told that too. Closing it is the caller's.
   */
  session?: ShellSession;
  /**
   * `bash`'s `execute` yields the command's output while it runs, as the
   * AI SDK's preliminary tool results (`{ text, isError: false, running:
   * true }`, at most one per 100 ms, what it printed so far: its head,
   * then a note and its tail, within the shell's `maxOutputBytes`, no
   * terminal control sequences), then the outcome, which is what the model
   * is shown. Default false: `execute` resolves once, with the outcome.
   */
  stream?: boolean;
}

/**
 * The `bash` tool of {@linkcode aiSdkTools} with `stream: true`: its
 * `execute` is an async iterable of outputs, the last the outcome.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type AiSdkStreamingTool, aiSdkTools } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const bash: AiSdkStreamingTool = aiSdkTools(shell, { owner: "chat-42", stream: true }).bash;
 * const outputs = [];
 * for await (const output of bash.execute({ command: "echo one; sleep 0.3; echo two" }, { toolCallId: "c1" })) {
 *   outputs.push(output);
 * }
 * assert.deepEqual(outputs.at(-1)?.text, "one\ntwo");
 * assert.ok(outputs.slice(0, -1).every((output) => output.running === true));
 * ```
 */
export interface AiSdkStreamingTool extends Omit<AiSdkTool, "execute"> {
  /** Runs one call: the output so far while it runs (`running: true`), then the outcome. */
  execute(
    input: unknown,
    options: { readonly toolCallId: string; readonly abortSignal?: AbortSignal },
  ): AsyncIterable<ToolOutcomeData>;
}

/**
 * The tools {@linkcode aiSdkTools} returns with `stream: true`: `bash`
 * streams its output.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type AiSdkStreamingTools, aiSdkTools } from "@dsh/shell/ai";
 * await using shell = createLocalShell();
 * const tools: AiSdkStreamingTools = aiSdkTools(shell, { owner: "chat-42", stream: true });
 * console.log(Object.keys(tools));
 * ```
 */
export type AiSdkStreamingTools = Omit<AiSdkTools, "bash"> & {
  /** The bash tool, streaming its output while the command runs. */
  bash: AiSdkStreamingTool;
};

/**
 * The tools {@linkcode aiSdkTools} returns, by name.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type AiSdkTools, aiSdkTools } from "@dsh/shell/ai";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const tools: AiSdkTools = aiSdkTools(shell, { owner: "chat-42" });
 * assert.deepEqual(Object.keys(tools), ["bash", "bash_output", "kill_shell", "exec_command", "write_stdin"]);
 * ```
 */
// A type, not an interface: the AI SDK's ToolSet is a record, which only a type literal satisfies.
export type AiSdkTools = {
  /** The bash tool (in the session, when one was given). */
  bash: AiSdkTool;
  /** Reads a background task's output. */
  bash_output: AiSdkTool;
  /** Stops a background task. */
  kill_shell: AiSdkTool;
  /** Codex's `exec_command`: a program left running, on a terminal with `tty: true`. */
  exec_command: AiSdkTool;
  /** Codex's `write_stdin`: types into a program `exec_command` left running. */
  write_stdin: AiSdkTool;
};

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
 * The five tools in the shape of the AI SDK's `tool()`, by name: `bash`,
 * `bash_output`, `kill_shell`, `exec_command`, `write_stdin`. Each has the
 * description and JSON Schema of `./tool`; its `execute` runs the call on
 * `shell` as `options.owner`, cancelled by the SDK's `abortSignal` (the
 * command's whole process group is killed), and returns
 * {@linkcode ToolOutcomeData}; the model is shown its `text`, as an error
 * (`error-text`) when `isError`. An input the tool refuses is not thrown:
 * its message is that text, so the model can correct the call.
 *
 * With `options.session` (one per conversation) the `bash` calls run in
 * it, so `cd` and `export` carry over, and `bash`'s description says so
 * (`bashSessionTool`'s); without it each call is a fresh shell, as
 * `bashTool`'s description says.
 *
 * Throws a `TypeError` of the library's family (`code`
 * `"ERR_SHELL_ARGUMENT"`) when `options.owner` is missing, or the session is
 * another owner's.
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
export function aiSdkTools<const O extends AiSdkToolOptions>(shell: Shell, options: O): AiSdkToolsOf<O> {
  return makeTools(shell, options) as AiSdkToolsOf<O>;
}

/**
 * What {@linkcode aiSdkTools} returns for `options` of type `O`: the
 * streaming `bash` when `stream` is `true`, the plain one when it is
 * `false` or absent, either when it is only known to be a boolean.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type AiSdkStreamingTools, type AiSdkTools, aiSdkTools, type AiSdkToolsOf } from "@dsh/shell/ai";
 * await using shell = createLocalShell();
 * const live: AiSdkToolsOf<{ owner: null; stream: true }> = aiSdkTools(shell, { owner: null, stream: true });
 * const plain: AiSdkTools = aiSdkTools(shell, { owner: null });
 * const either: AiSdkTools | AiSdkStreamingTools = live;
 * console.log(Object.keys(plain).length, Object.keys(either).length);
 * ```
 */
export type AiSdkToolsOf<O extends AiSdkToolOptions> = O extends { stream: true } ? AiSdkStreamingTools
  : O extends { owner: unknown; stream?: false | undefined } ? AiSdkTools
  : AiSdkTools | AiSdkStreamingTools;

/** {@linkcode aiSdkTools}, untyped by the options. */
function makeTools(shell: Shell, options: AiSdkToolOptions): AiSdkTools | AiSdkStreamingTools {
  const stream = typeof options === "object" && options !== null ? options.stream : undefined;
  if (stream !== undefined && typeof stream !== "boolean") {
    throw new ShellArgumentError("stream", "must be a boolean or absent");
  }
  const toModelOutput: AiSdkTool["toModelOutput"] = ({ output }) => ({
    type: output.isError ? "error-text" : "text",
    value: output.text,
  });
  const [bashCall, ...others] = toolCalls(shell, options);
  const [bashOutput, killShell, execCommand, writeStdin] = others.map((call) => {
    const definition: AiSdkTool = {
      description: call.description,
      inputSchema: standardSchema(call.inputSchema),
      execute: (input, { abortSignal }) => call.run(input, abortSignal),
      toModelOutput,
    };
    // tool() returns its argument; passing the definition through it checks, at compile time, that it is an AI SDK tool.
    return tool(definition) as AiSdkTool;
  });
  const common = {
    description: bashCall.description,
    inputSchema: standardSchema(bashCall.inputSchema),
    toModelOutput,
  };
  const rest = { bash_output: bashOutput, kill_shell: killShell, exec_command: execCommand, write_stdin: writeStdin };
  if (stream === true) {
    const budget = outputBudget(shell);
    const bash: AiSdkStreamingTool = {
      ...common,
      execute: (input, { abortSignal }) => streamed(bashCall, input, abortSignal, budget),
    };
    return { bash: tool(bash) as AiSdkStreamingTool, ...rest };
  }
  const bash: AiSdkTool = { ...common, execute: (input, { abortSignal }) => bashCall.run(input, abortSignal) };
  return { bash: tool(bash) as AiSdkTool, ...rest };
}

/** What a call's result keeps of each stream: the shell's `maxOutputBytes`, as its `resolve()` fills it in. */
function outputBudget(shell: Shell): number {
  try {
    return shell.resolve({ command: "true", owner: null }).stdoutMaxBytes;
  } catch {
    return DEFAULTS.maxOutputBytes;
  }
}

/**
 * One streamed bash call: the output so far whenever some arrived (at most
 * one per {@linkcode LIVE_INTERVAL_MS}), then the outcome.
 */
async function* streamed(
  call: ToolCall,
  input: unknown,
  signal: AbortSignal | undefined,
  budget: number,
): AsyncGenerator<ToolOutcomeData> {
  const live = new LiveOutput(budget);
  const over = new AbortController();
  const outcome = call.run(input, signal, { onStdout: live.push, onStderr: live.push });
  outcome.then(() => over.abort(), () => over.abort());
  let last = -Infinity;
  while (!over.signal.aborted) {
    await live.changed(over.signal);
    const wait = last + LIVE_INTERVAL_MS - performance.now();
    if (wait > 0 && !over.signal.aborted) await pause(wait, over.signal);
    if (over.signal.aborted) break;
    last = performance.now();
    yield { text: live.text(), isError: false, running: true };
  }
  yield await outcome;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Claude Code's `Read`, `Write` and `Edit` and Codex's `apply_patch` as AI
 * SDK tools, run as `options.owner` where the shell's commands run (under
 * its sandbox, on its engine): pass them to `generateText({ tools })`,
 * beside `aiSdkTools`. Throws a `TypeError` of the library's family
 * (`code` `"ERR_SHELL_ARGUMENT"`) when `owner` is missing.
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
