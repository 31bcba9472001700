/**
 * The shapes of the two tools with Codex's unified-exec names:
 * `exec_command` starts a program and `write_stdin` talks to it.
 *
 * @module
 */

import type { ToolInputSchema } from "../shared/types.ts";

/**
 * The arguments of one `exec_command` call, after `execCommandTool.parse`
 * checked them. The names are Codex's.
 *
 * @example
 * ```ts
 * import { type ExecCommandInput, execCommandTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const input: ExecCommandInput = execCommandTool.parse({ cmd: "python3", tty: true, yield_time_ms: 500 });
 * assert.equal(input.tty, true);
 * ```
 */
export interface ExecCommandInput {
  /** The command line, run as `bash -c <cmd>`. Never empty. */
  cmd: string;
  /** Where it starts: absolute, or relative to the shell's workdir. Never empty. */
  workdir?: string;
  /** Run it on a pseudo-terminal, whose input stays open for `write_stdin` (default false: no input). */
  tty?: boolean;
  /** How long to wait for it to end before answering, in ms (default 10 000, at most 30 000). */
  yield_time_ms?: number;
  /** A cap on the output in the answer, in tokens of about 4 bytes (default 10 000). */
  max_output_tokens?: number;
}

/**
 * The arguments of one `write_stdin` call, after `writeStdinTool.parse`
 * checked them.
 *
 * @example
 * ```ts
 * import { type WriteStdinInput, writeStdinTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const input: WriteStdinInput = writeStdinTool.parse({ session_id: 4242, chars: "y\n" });
 * assert.equal(input.chars, "y\n");
 * ```
 */
export interface WriteStdinInput {
  /** The id from `Process running with session ID <id>`. */
  session_id: number;
  /** What to type (`"\x03"` is Ctrl-C); empty or absent: only read what it printed since. */
  chars?: string;
  /** How long to wait for more output (or its end) after writing, in ms (default 250, at most 30 000). */
  yield_time_ms?: number;
  /** A cap on the output in the answer, in tokens of about 4 bytes (default 10 000). */
  max_output_tokens?: number;
}

/**
 * The `exec_command` tool as one object.
 *
 * @example
 * ```ts
 * import { type ExecCommandTool, execCommandTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const tool: ExecCommandTool = execCommandTool;
 * assert.equal(tool.name, "exec_command");
 * assert.deepEqual(tool.inputSchema.required, ["cmd"]);
 * ```
 */
export interface ExecCommandTool {
  /** The tool's name: `"exec_command"`. */
  readonly name: "exec_command";
  /** What the tool does and how to use it, written for the model. */
  readonly description: string;
  /** The JSON Schema of the input. */
  readonly inputSchema: ToolInputSchema;
  /** Checks a model's input; throws `ToolInputError` naming the field. */
  parse(input: unknown): ExecCommandInput;
}

/**
 * The `write_stdin` tool as one object.
 *
 * @example
 * ```ts
 * import { type WriteStdinTool, writeStdinTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const tool: WriteStdinTool = writeStdinTool;
 * assert.equal(tool.name, "write_stdin");
 * assert.deepEqual(tool.inputSchema.required, ["session_id"]);
 * ```
 */
export interface WriteStdinTool {
  /** The tool's name: `"write_stdin"`. */
  readonly name: "write_stdin";
  /** What the tool does and how to use it, written for the model. */
  readonly description: string;
  /** The JSON Schema of the input. */
  readonly inputSchema: ToolInputSchema;
  /** Checks a model's input; throws `ToolInputError` naming the field. */
  parse(input: unknown): WriteStdinInput;
}

/**
 * What `executeExecCommandTool` and `executeWriteStdinTool` return: the
 * text for the model, whether the call failed, and the program's session id
 * while it runs or its exit code once it has ended.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeExecCommandTool, type UnifiedExecOutcome } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const outcome: UnifiedExecOutcome = await executeExecCommandTool(shell, { cmd: "echo hi" }, { owner: "a" });
 * assert.equal(outcome.exitCode, 0);
 * assert.match(outcome.text, /^Output:\nhi\n$/m);
 * ```
 */
export interface UnifiedExecOutcome {
  /** The text for the model. */
  text: string;
  /** True when the call itself failed (a bad input, an unknown session, a program that could not start). */
  isError: boolean;
  /** The program's id for `write_stdin`, while it runs. */
  sessionId?: number;
  /** Its exit code, once it has ended by itself. */
  exitCode?: number;
}
